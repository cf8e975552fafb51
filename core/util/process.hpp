// Running programs without a shell: fork and exec, pipes, a deadline, process groups, and the
// supervisor's stop: TERM to the group, a grace period, KILL; children die with zl.
#pragma once

#include "util/escalation.hpp" // stop_grace(), and how every stop escalates

#include <chrono>
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::util {

class SignalForwarding;

// After the program exits, how long zl still reads output held by what it left behind.
inline constexpr std::chrono::milliseconds k_drain_limit{2000};

struct ProcessResult
{
  int exit_code = -1;          // the exit status, or 128+signal when killed by a signal
  int term_signal = 0;         // the signal that ended it, 0 when it exited
  bool timed_out = false;      // stopped because the deadline passed
  bool stop_requested = false; // stopped because SpawnSpec::signals received a signal
  bool killed = false;         // zl had to send SIGKILL (the grace period passed, or a second signal)
  int leftovers = 0;           // processes it left behind that zl ended (group, or orphans)
};

struct SpawnSpec
{
  std::vector<std::string> argv;               // argv[0] is looked up on PATH unless it has '/'
  std::optional<std::vector<std::string>> env; // KEY=VALUE entries; nullopt inherits zl's
  std::string cwd;                             // empty: zl's working directory
  bool new_process_group = false;              // so a signal can reach the whole tree
  std::optional<std::chrono::milliseconds> timeout;
  std::function<void(int pid)> on_spawn; // told the child's pid as soon as it exists
  // Sent to the child when zl dies (PR_SET_PDEATHSIG). SIGTERM suits a zl child, which then ends
  // its own tree in order; SIGKILL suits anything else.
  int parent_death_signal = SIGKILL;
  // Stop signals received while the child runs: the first is passed to its group (TERM-like),
  // SIGKILL follows after grace; a second kills at once. nullptr: only the deadline stops it.
  const SignalForwarding* signals = nullptr;
  std::chrono::milliseconds grace = stop_grace();
  // After the child exits, end what it left in its process group and, when zl is a subreaper
  // (become_subreaper), the orphans reparented to zl. Only for a caller whose other children are
  // all waited for: every child of zl that is not accounted for is taken as a leftover.
  bool end_leftovers = false;
};

// Thrown when the program could not be started at all (not found, not executable).
struct SpawnFailure
{
  int error_number;
  std::string message;
};

// Runs spec and streams its standard output to on_stdout and its standard error to on_stderr
// (discarded when empty); its standard input is /dev/null. Returns when the program has exited,
// what it left behind is ended (end_leftovers) and the pipes are drained (at most
// k_drain_limit after the exit: a leftover may hold them open). Throws SpawnFailure when the
// program cannot be started.
ProcessResult run(const SpawnSpec& spec, const std::function<void(std::string_view)>& on_stdout,
                  const std::function<void(std::string_view)>& on_stderr = {});

// A program start() left running: the caller waits for it and reads its output.
struct Started
{
  int pid = -1;
  int out_fd = -1; // read ends of its standard output and error; the caller closes them
  int err_fd = -1;
};

// Starts spec without waiting, for a caller that talks to a long-lived program itself (a warm
// worker): pass_fds (at most 8) become its descriptors 3, 4, …; its standard input is
// /dev/null. spec.timeout, signals and end_leftovers are the caller's to handle. Throws
// SpawnFailure when the program cannot be started.
Started start(const SpawnSpec& spec, const std::vector<int>& pass_fds = {});

// Finds a program on PATH the way execvp would; nullopt when absent.
std::optional<std::string> find_program(std::string_view name);

// Makes zl the reaper of its descendants' orphans (PR_SET_CHILD_SUBREAPER), so that what a
// benchmark double-forks or setsid()s away from its group can still be found and ended.
void become_subreaper();

// SIGSEGV for 11: the name of a signal, or "signal N".
std::string signal_name(int signal);

// Makes sure descriptors 0, 1 and 2 are open (on /dev/null when closed), so that the first
// file zl opens cannot become its standard output. Call first thing in main.
// Returns whether standard output was closed (what zl writes there is then lost: cli/app.cpp).
bool ensure_standard_descriptors();

} // namespace zl::util
