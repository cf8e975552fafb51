// Planning one run: every decision `zl run` makes before pytest starts, as data that `zl plan`
// prints and plan.json carries to the Python plugins.
#pragma once

#include "loader/module.hpp"
#include "run/node.hpp"
#include "run/release.hpp"
#include "run/request.hpp"
#include "run/sampling.hpp"
#include "run/telemetry.hpp"
#include "run/tuner_cache.hpp"
#include "util/json.hpp"

#include <string>
#include <utility>
#include <vector>

namespace zl::run {

struct Plan
{
  Request request;
  Node node;
  Release release; // what the FlagGems checkout's own files say it is and takes
  const loader::Module* backend = nullptr;
  std::string backend_how; // why this backend: "--backend", "ZL_BACKEND", or the automatic reason
  loader::Device device;
  std::string timer;                // effective: graph, direct or profiler
  std::string timer_reason;         // why that timer, in words
  Sampling sampling;                // --sampling
  std::string samples_file;         // <run_dir>/samples.bin: every timed sample
  TelemetrySpec telemetry;          // --telemetry
  std::string telemetry_file;       // <run_dir>/telemetry.jsonl: the device's state, read by zl
  std::vector<std::string> plugins; // the -p list, in order
  std::string run_dir;
  std::string plan_path;
  std::string versions_file;
  std::string outcomes_file;           // each test's outcome, written by zl_identity
  std::string shape_file;              // what pytest gets as --shape_file; empty: FlagGems' own
  std::string shape_source;            // where the shapes in force come from
  std::vector<std::string> shape_keys; // the keys of the shape file the op's lookup ends at
  std::string node_link;               // <run_dir>/<the node's top folder>: pytest reaches the node through it
  std::string autotune_mode = "off";   // off, record, replay
  std::string autotune_source;         // replay: the autotune_records folder pinned from
  std::string autotune_records;        // record: <run_dir>/autotune_records
  TunerCache tuner_cache;
  std::vector<std::string> argv;                            // python -m pytest <node> <FlagGems' options>
  std::vector<std::string> pytest_options;                  // zl's own, through PYTEST_ADDOPTS
  std::vector<std::pair<std::string, std::string>> env_set; // what zl sets for pytest
  std::vector<std::string> env_unset;                       // what zl removes for pytest
};

// auto becomes graph where the backend captures, else direct. Throws Error (exit 2) when the
// backend cannot give the timer asked for.
std::string resolve_timer(const std::string& requested, const loader::Module& backend);

// Why resolve_timer chose `effective`, for zl plan and the identity.
std::string timer_reason(const std::string& requested, const std::string& effective, const loader::Module& backend);

// Throws Error (exit 2) when the backend cannot run the mode: cudagraph needs graph capture.
void check_mode(const std::string& mode, const loader::Module& backend);

// The name FlagGems gives its record log for these pytest arguments (those after
// `python -m pytest`): result_<args>.log, each argument without ".py", '=' and '/' as '_'.
std::string record_log_name(const std::vector<std::string>& pytest_args);

// What zl gives pytest besides the node and FlagGems' options: -s, the root, the checkout's
// pytest.ini, the -p list, the -m filter. They reach pytest through PYTEST_ADDOPTS (quoted by
// pytest_addopts), so that FlagGems' record-log name, built from the argument list alone, is
// no longer than a plain session's.
std::vector<std::string> zl_pytest_options(const Plan& plan);
std::string pytest_addopts(const std::vector<std::string>& options);

// The -p list: compat plugins first (they rewrite collection-time markers and nothing may read
// the item list before them), then device setup, timing, autotune (only to record or replay),
// capture (only for timer=graph), identity.
std::vector<std::string> plan_plugins(const loader::Module& backend, const std::string& timer,
                                      const std::string& autotune_mode = "off");

// The records folder --replay-from names: DIR/autotune_records when DIR is a run folder that
// has one, else DIR itself (absolute).
std::string replay_records_dir(const std::string& replay_from);

// The device --device names (an index or a UUID), or the first. Throws Error when there is none.
loader::Device choose_device(const loader::Module& backend, const std::string& wanted);

// Folders the plugins live in: the install's share/zl/python, else the source tree.
std::vector<std::string> plugin_python_path();

// Builds the whole plan; reads the tuner cache and the FlagGems tree but writes nothing.
Plan make_plan(const Request& request, const loader::Module& backend, const std::string& backend_how);

// The autotune object's fields that the plan decides (mode, source, records_dir), as members of
// the JSON object being written: plan.json and run_identity.json.
void autotune_fields(util::JsonWriter& j, const Plan& plan);

// plan.json, schema 1 (docs/plan-file.md).
std::string plan_json(const Plan& plan);

// pytest's environment: zl's own, less ZL_* and the earlier harness's inputs, less the
// backend's masking variables, plus env_set.
std::vector<std::string> child_environment(const Plan& plan);

} // namespace zl::run
