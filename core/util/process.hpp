// Running programs without a shell: posix_spawnp, pipes, a deadline, process groups.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::util {

struct ProcessResult
{
  int exit_code = -1;     // the exit status, or 128+signal when killed by a signal
  int term_signal = 0;    // the signal that ended it, 0 when it exited
  bool timed_out = false; // killed because the deadline passed
};

struct SpawnSpec
{
  std::vector<std::string> argv;                // argv[0] is looked up on PATH unless it has '/'
  std::optional<std::vector<std::string>> env;  // KEY=VALUE entries; nullopt inherits zl's
  std::string cwd;                              // empty: zl's working directory
  bool new_process_group = false;               // so a signal can reach the whole tree
  std::optional<std::chrono::milliseconds> timeout;
  std::function<void(int pid)> on_spawn; // told the child's pid as soon as it exists
};

// Thrown when the program could not be started at all (not found, not executable).
struct SpawnFailure
{
  int error_number;
  std::string message;
};

// Runs spec and streams its standard output to on_stdout and its standard error to on_stderr
// (discarded when empty). Returns when the program has exited and both pipes are drained.
// Throws SpawnFailure when the program cannot be started.
ProcessResult run(const SpawnSpec& spec, const std::function<void(std::string_view)>& on_stdout,
                  const std::function<void(std::string_view)>& on_stderr = {});

// Finds a program on PATH the way posix_spawnp would; nullopt when absent.
std::optional<std::string> find_program(std::string_view name);

} // namespace zl::util
