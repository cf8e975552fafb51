#include "util/process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace zl::util {

namespace {

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

} // namespace

ProcessResult run(const SpawnSpec& spec, const std::function<void(std::string_view)>& on_stdout,
                  const std::function<void(std::string_view)>& on_stderr)
{
  if (spec.argv.empty()) {
    throw SpawnFailure{EINVAL, "empty command line"};
  }
  Fd out_read, out_write, err_read, err_write;
  make_pipe(out_read, out_write);
  make_pipe(err_read, err_write);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!spec.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  if (spec.new_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);

  auto argv = c_strings(spec.argv);
  std::vector<char*> envp;
  if (spec.env) {
    envp = c_strings(*spec.env);
  }
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), spec.env ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    throw SpawnFailure{rc, fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(rc))};
  }
  out_write.reset();
  err_write.reset();
  if (spec.on_spawn) {
    spec.on_spawn(pid);
  }

  const auto deadline = spec.timeout ? std::chrono::steady_clock::now() + *spec.timeout
                                     : std::chrono::steady_clock::time_point::max();
  bool timed_out = false;
  pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
  char buf[16384];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int wait_ms = -1;
    if (spec.timeout) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out = true;
        ::kill(spec.new_process_group ? -pid : pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    const int n = ::poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      const ssize_t got = ::read(fds[i].fd, buf, sizeof(buf));
      if (got > 0) {
        const auto& sink = i == 0 ? on_stdout : on_stderr;
        if (sink) {
          sink(std::string_view(buf, static_cast<size_t>(got)));
        }
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult result = decode_status(status);
  result.timed_out = timed_out;
  return result;
}

std::optional<std::string> find_program(std::string_view name)
{
  auto executable = [](const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string_view::npos) {
    return executable(std::string(name)) ? std::optional<std::string>(name) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t pos = 0;
  while (pos <= dirs.size()) {
    const auto next = std::min(dirs.find(':', pos), dirs.size());
    std::string dir(dirs.substr(pos, next - pos));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
    if (executable(candidate)) {
      return candidate;
    }
    pos = next + 1;
  }
  return std::nullopt;
}

} // namespace zl::util
