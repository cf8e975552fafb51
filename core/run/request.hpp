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
