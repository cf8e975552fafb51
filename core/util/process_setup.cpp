// The process-wide settings of util/process.hpp: the subreaper, the standard descriptors,
// program lookup and signal names (the grace period is util/escalation.cpp's).
#include "util/process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace zl::util {

void become_subreaper()
{
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

std::string signal_name(int signal)
{
  // A table, not sigabbrev_np: that needs glibc 2.32, older than some hosts zl is packaged for.
  static const std::pair<int, const char*> names[] = {
      {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},     {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"},     {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},   {SIGCHLD, "SIGCHLD"},
      {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},   {SIGTTIN, "SIGTTIN"},
      {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},   {SIGXFSZ, "SIGXFSZ"},
      {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"}, {SIGIO, "SIGIO"},
      {SIGPWR, "SIGPWR"},       {SIGSYS, "SIGSYS"}};
  for (const auto& [number, name] : names) {
    if (number == signal) {
      return name;
    }
  }
  return fmt::format("signal {}", signal);
}

bool ensure_standard_descriptors()
{
  bool stdout_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      stdout_closed = stdout_closed || fd == 1;
      // open() takes the lowest free descriptor, which is fd.
      if (::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd) {
        std::_Exit(70);
      }
    }
  }
  return stdout_closed;
}

std::optional<std::string> find_program(std::string_view name)
{
  auto executable = [](const std::string& path) {
    struct stat st = {};
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
