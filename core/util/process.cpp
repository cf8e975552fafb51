#include "util/process.hpp"

#include "util/process_tree.hpp"
#include "util/pump.hpp"
#include "util/signals.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace zl::util {

namespace {

using Clock = std::chrono::steady_clock;
// How often zl looks at the child while its pipes are quiet: the latency of noticing an exit
// whose pipes a leftover holds open, a stop signal, or the end of a grace period.
constexpr std::chrono::milliseconds k_tick{50};

// Owns a file descriptor; closes it once.
class Fd
{
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return m_fd; }
  void release() { m_fd = -1; }
  void reset(int fd = -1)
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = fd;
  }

private:
  int m_fd = -1;
};

void make_pipe(Fd& read_end, Fd& write_end)
{
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw SpawnFailure{errno, fmt::format("pipe: {}", std::strerror(errno))};
  }
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
}

std::vector<char*> c_strings(const std::vector<std::string>& strings)
{
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) {
    out.push_back(const_cast<char*>(s.c_str()));
  }
  out.push_back(nullptr);
  return out;
}

ProcessResult decode_status(int status)
{
  ProcessResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
    result.exit_code = 128 + result.term_signal;
  }
  return result;
}

// Makes `fd` the descriptor `target` in the child, without the close-on-exec flag.
void install(int fd, int target)
{
  if (fd == target) {
    ::fcntl(fd, F_SETFD, 0);
  } else {
    ::dup2(fd, target);
  }
}

// The child between fork and exec: async-signal-safe calls only (zl may have threads).
[[noreturn]] void exec_child(const SpawnSpec& spec, pid_t parent, const char* path, char* const* argv,
                             char* const* envp, int out_fd, int err_fd, int status_fd, const int* pass_fds,
                             size_t n_pass)
{
  if (spec.new_process_group) {
    ::setpgid(0, 0);
  }
  // Die with zl; if zl is already gone, the signal was never armed: leave now.
  ::prctl(PR_SET_PDEATHSIG, spec.parent_death_signal);
  if (::getppid() != parent) {
    ::_exit(127);
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  install(out_fd, STDOUT_FILENO);
  install(err_fd, STDERR_FILENO);
  if (null_fd >= 0) {
    install(null_fd, STDIN_FILENO);
  }
  // Descriptors 3, 4, … may be taken by the very ones to install there: lift everything above
  // first, then place each.
  constexpr int k_high = 64;
  int lifted[8];
  status_fd = ::fcntl(status_fd, F_DUPFD_CLOEXEC, k_high);
  for (size_t i = 0; i < n_pass; ++i) {
    lifted[i] = ::fcntl(pass_fds[i], F_DUPFD_CLOEXEC, k_high);
  }
  for (size_t i = 0; i < n_pass; ++i) {
    install(lifted[i], static_cast<int>(3 + i));
  }
  int error = 0;
  if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) {
    error = errno;
  }
  // zl's handlers and ignored signals (SIGPIPE) are not the benchmark's.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    ::sigaction(s, &dfl, nullptr);
  }
  if (error == 0) {
    ::execve(path, argv, envp);
    error = errno;
  }
  while (::write(status_fd, &error, sizeof error) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

int stop_count(const SpawnSpec& spec)
{
  return spec.signals != nullptr ? spec.signals->count() : 0;
}

// What the child left behind: TERM, the grace period (none when zl already had to kill), KILL;
// a second stop signal kills at once. Returns how many processes it ended.
int end_leftovers(const SpawnSpec& spec, pid_t pid, bool killed, Pump& pipes, const Sink& on_stdout,
                  const Sink& on_stderr)
{
  Leftovers leftovers(spec.new_process_group ? pid : 0, spec.end_leftovers);
  Escalation stop(killed ? std::chrono::milliseconds(0) : spec.grace);
  const auto now = Clock::now();
  stop.begin(now);
  const auto give_up = now + stop.grace() + k_drain_limit;
  while (leftovers.scan() && Clock::now() < give_up) {
    if (stop_count(spec) > 1) {
      stop.hurry(Clock::now());
    }
    // Each new leftover gets the signal of the moment (Leftovers sends SIGTERM once each).
    leftovers.signal(stop.stage(Clock::now()));
    pipes.pump(k_tick / 2, on_stdout, on_stderr);
  }
  return leftovers.ended();
}

} // namespace

Started start(const SpawnSpec& spec, const std::vector<int>& pass_fds)
{
  if (spec.argv.empty()) {
    throw SpawnFailure{EINVAL, "empty command line"};
  }
  if (pass_fds.size() > 8) {
    throw SpawnFailure{EINVAL, "more than 8 descriptors to pass"};
  }
  const auto path = find_program(spec.argv[0]);
  if (!path) {
    throw SpawnFailure{ENOENT, fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(ENOENT))};
  }
  Fd out_read, out_write, err_read, err_write, status_read, status_write;
  make_pipe(out_read, out_write);
  make_pipe(err_read, err_write);
  make_pipe(status_read, status_write);
  auto argv = c_strings(spec.argv);
  std::vector<char*> envp;
  if (spec.env) {
    envp = c_strings(*spec.env);
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw SpawnFailure{errno, fmt::format("cannot run {}: fork: {}", spec.argv[0], std::strerror(errno))};
  }
  if (pid == 0) {
    exec_child(spec, parent, path->c_str(), argv.data(), spec.env ? envp.data() : environ, out_write.get(),
               err_write.get(), status_write.get(), pass_fds.data(), pass_fds.size());
  }
  if (spec.new_process_group) {
    ::setpgid(pid, pid); // also here, so no signal to the group can come before the child's own call
  }
  out_write.reset();
  err_write.reset();
  status_write.reset();
  int exec_error = 0;
  ssize_t got;
  while ((got = ::read(status_read.get(), &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  if (got == sizeof exec_error) {
    int ignored;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    throw SpawnFailure{exec_error, fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(exec_error))};
  }
  if (spec.on_spawn) {
    spec.on_spawn(pid);
  }
  Started started{pid, out_read.get(), err_read.get()};
  out_read.release();
  err_read.release();
  return started;
}

ProcessResult run(const SpawnSpec& spec, const std::function<void(std::string_view)>& on_stdout,
                  const std::function<void(std::string_view)>& on_stderr)
{
  const auto started = start(spec);
  const pid_t pid = started.pid;
  Pump pipes(started.out_fd, started.err_fd);
  const auto target = spec.new_process_group ? -pid : pid;
  const auto deadline = spec.timeout ? Clock::now() + *spec.timeout : Clock::time_point::max();
  Escalation stop(spec.grace);
  bool timed_out = false, stop_requested = false;
  int status = 0;
  bool reaped = false;
  while (true) {
    pipes.pump(k_tick, on_stdout, on_stderr);
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      reaped = w == pid;
      break;
    }
    const auto now = Clock::now();
    const int stops = stop_count(spec);
    if (!stop.begun() && (stops > 0 || now >= deadline)) {
      stop_requested = stops > 0;
      timed_out = !stop_requested;
      stop.begin(now, stop_requested ? spec.signals->signal() : SIGTERM);
    }
    if (stops > 1) {
      stop.hurry(now);
    }
    for (int sig; (sig = stop.due(now)) != 0;) {
      ::kill(target, sig);
      if (sig != SIGKILL) {
        ::kill(target, SIGCONT); // a stopped benchmark must run to handle it
      }
    }
  }
  // Not reaped (someone else waited for it): the status is unknown, never a success.
  ProcessResult result = reaped ? decode_status(status) : ProcessResult{};
  result.timed_out = timed_out;
  result.stop_requested = stop_requested;
  result.killed = stop.killed();
  if (spec.new_process_group || spec.end_leftovers) {
    result.leftovers = end_leftovers(spec, pid, result.killed, pipes, on_stdout, on_stderr);
  }
  pipes.drain(k_drain_limit, on_stdout, on_stderr);
  return result;
}

} // namespace zl::util
