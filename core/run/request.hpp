// What the user asked of one run, after options and the earlier harness's variables merged.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zl::run {

struct Request
{
  std::string flaggems_dir;      // --flaggems, FLAGGEMS_DIR, or the working folder
  std::string flaggems_dir_from; // which of those
  std::string op;                // --op / OP
  std::string op_file;           // --op-file / OP_FILE
  std::string test_node;         // --test-node / TEST_NODE
  std::string level = "core";    // --level / BENCH_LEVEL
  std::string mode = "kernel";   // --mode
  std::vector<std::string> dtypes;
  std::string timer = "auto"; // --timer
  std::string sampling;       // --sampling, as given; empty: the default
  std::string telemetry;      // --telemetry, as given; empty: the default
  std::string device;         // --device: an index or a UUID; empty for the first
  std::string shape_file;     // --shape-file / SHAPE_FILE
  bool shape_mode_upstream = false;
  std::string replay_from;      // --replay-from / REPLAY_FROM
  bool record_autotune = false; // --record-autotune
  bool isolate_tuner_cache = false;
  std::string out_dir;                 // --out
  std::string python;                  // --python / ZL_PYTHON / python3
  std::vector<std::string> extra_args; // after --
  std::vector<std::string> command_line;
};

// What a command line said about the options that fall back to the earlier harness's variables;
// nullopt where an option is absent.
struct GivenOptions
{
  std::optional<std::string> flaggems, level, shape_file, shape_mode, replay_from, python;
  bool isolate_tuner_cache = false;
};

// A variable of the earlier harness; an empty value counts as unset.
std::string variable(const char* name);
// The option when given (even empty), else the variable (nullptr: none).
std::string option_or(const std::optional<std::string>& option, const char* variable_name);

// Sets flaggems_dir and flaggems_dir_from: a non-empty --flaggems, else FLAGGEMS_DIR, else the
// working folder when it holds benchmark/conftest.py; empty when none (preflight says so).
void locate_flaggems(Request& request, const std::optional<std::string>& option);
// --python, else ZL_PYTHON, else python3.
std::string python_of(const std::optional<std::string>& option);

// Everything given says, with the variables and defaults `zl run` applies: flaggems_dir (and
// from), level (BENCH_LEVEL, core), shape_file (SHAPE_FILE; cleared by SHAPE_MODE=upstream unless
// --shape-file is given), shape_mode_upstream (SHAPE_MODE), replay_from (REPLAY_FROM),
// isolate_tuner_cache (ZL_ISOLATE_TUNER_CACHE=1) and python. Throws Error (exit 2) for a
// --shape-mode other than upstream.
void apply_options(Request& request, const GivenOptions& given);

// Values the level, mode, timer and dtypes options accept.
extern const std::vector<std::string> k_levels;
extern const std::vector<std::string> k_modes;
extern const std::vector<std::string> k_timers;
extern const std::vector<std::string> k_dtypes;

// Throws Error (exit 2) when a value is not one the option accepts, naming the option and the
// accepted values; checks that something to run is given: op, op_file or both, or test_node
// alone.
void validate(const Request& request);

} // namespace zl::run
