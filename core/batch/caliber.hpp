// A campaign's caliber: what makes two ops' numbers comparable (backend, FlagGems tree, level,
// mode, dtypes, timer, shapes, autotune replay, tuner cache, python, executor). It is resolved once, the
// way `zl run` resolves it (options, then the same variables, then the defaults), forwarded
// explicitly to every op, recorded in campaign.json when the campaign starts, and compared by
// --resume, so that one campaign never mixes two calibers.
#pragma once

#include "batch/ops_status.hpp"
#include "run/request.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::batch {

inline constexpr const char* k_campaign_file = "campaign.json";
// The campaign's results store when --db names no other (a Slurm campaign's, always).
inline constexpr const char* k_store_file = "results.sqlite";

// What the batch command line said; nullopt where an option was not given.
struct CaliberOptions
{
  std::string backend;
  std::optional<std::string> flaggems_dir; // else FLAGGEMS_DIR, else the working folder
  std::optional<std::string> level, mode, dtypes, timer, shape_file, shape_mode, replay_from, python;
  std::optional<std::string> sampling;  // else ZL_SAMPLING, else the default
  std::optional<std::string> telemetry; // else ZL_TELEMETRY, else the default
  bool isolate_tuner_cache = false;
  // Else the default (exec::default_executor); --resume keeps the campaign's (open_campaign).
  std::optional<std::string> executor;
};

struct Caliber
{
  std::string backend;
  std::string flaggems_dir; // absolute
  std::string level;
  std::string mode;
  std::vector<std::string> dtypes;
  std::string timer;
  std::string sampling = "fixed"; // canonical (run::to_string); a campaign.json without it sampled once a row
  // How the device's state is read (run::to_string); not compared on --resume: it measures the
  // device, not the ops. A campaign.json without it read none.
  std::string telemetry = "off";
  std::string shape_file; // absolute; empty for the FlagGems tree's own
  std::string shape_file_sha256;
  bool shape_mode_upstream = false;
  std::string replay_from; // absolute; empty for none
  bool isolate_tuner_cache = false;
  std::string python;
  std::string executor = "process"; // a campaign.json without it was run by the process executor
};

// An absolute, lexically normal path without a trailing "/." (what "dir/" normalizes to), so
// that "corpus", "./corpus/" and "/abs/corpus" are one folder in records and comparisons.
std::string normal_path(const std::string& path);

// Resolves and validates (Error, exit 2, naming the option and the values it accepts).
Caliber resolve_caliber(const CaliberOptions& options);

// The request every op of the campaign starts from (op, device and out_dir left empty): every
// caliber value is set, so that no variable changes an op's caliber.
run::Request base_request(const Caliber& c);

std::string caliber_json(const Caliber& c);
// Throws Error naming the file when text is not a campaign.json of this zl.
Caliber parse_caliber_json(const std::string& text, const std::string& path);

// One line per difference, naming the option, the campaign's value and this command's.
std::vector<std::string> caliber_differences(const Caliber& recorded, const Caliber& now);

// For a campaign made before campaign.json existed: what its ops' run identities say (backend,
// level, mode, timer asked, dtypes, FlagGems folder) against now; also the ops_status rows.
std::vector<std::string> legacy_differences(const std::vector<OpStatus>& statuses, const std::string& out_dir,
                                            const Caliber& now);

} // namespace zl::batch
