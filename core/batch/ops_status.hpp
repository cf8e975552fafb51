// ops_status.csv: one row per op of a campaign, rewritten atomically after each op so that a
// campaign killed at any moment keeps every finished op's row.
#pragma once

#include "results/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::batch {

struct OpStatus
{
  std::string op;
  results::OpState status = results::OpState::pending;
  std::optional<int> exit_code;
  long long rows = 0;
  std::string backend;
  std::optional<unsigned> device_index;
  std::string device_uuid;
  std::string timer;
  std::string level;
  std::optional<double> duration_s;
  std::string run_dir;
  long long direct_fallbacks = 0; // BENCHMARK_DIRECT_NO_CUDAGRAPH lines
  long long poisoned = 0;         // BENCHMARK_CAPTURE_POISONED lines
  long long replay_fallbacks = 0; // AUTOTUNE_REPLAY_FALLBACK lines
  std::string slurm_state;        // its array task's Slurm state (COMPLETED, TIMEOUT, …); empty locally
};

// The header row, in column order.
const std::vector<std::string>& ops_status_columns();

// Parses a file written by format_ops_status, or by the zl before slurm_state (its header lacks
// that last column), so that a campaign of the earlier zl resumes unchanged. Throws Error naming
// the file and line on a row that does not fit, so --resume never guesses.

// The whole file's text (RFC 4180 quoting where a field needs it).
std::string format_ops_status(const std::vector<OpStatus>& ops);

std::vector<OpStatus> parse_ops_status(const std::string& text, const std::string& path);

// The state of a finished op from zl run's exit code, its rows, whether it timed out or was
// interrupted, and the state its identity's status names (recorded: none without an identity,
// or for a status only a run has, no_tests, …): the identity tells an op FlagGems declined
// (unsupported, skipped) from one that failed.
results::OpState status_from_exit(int exit_code, long long rows, bool timed_out, bool interrupted,
                                  std::optional<results::OpState> recorded = std::nullopt);

} // namespace zl::batch
