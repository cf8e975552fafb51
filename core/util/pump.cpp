#include "util/pump.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <utility>

namespace zl::util {

namespace {

constexpr size_t k_chunk = 65536;
// Reads of one pipe per pump: a child that writes without pause must not keep zl from looking
// at its exit, a stop signal or a deadline. 16 chunks hold the largest pipe an unprivileged
// process can ask for (1 MiB), so what was written before a reply is all read with it.
constexpr int k_reads_per_pump = 16;

void close_fd(int& fd)
{
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

} // namespace

Pump::Pump(int out_fd, int err_fd) : m_fds{out_fd, err_fd}
{
  for (const int fd : m_fds) {
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
  }
}

Pump::Pump(Pump&& other) noexcept : m_fds{std::exchange(other.m_fds[0], -1), std::exchange(other.m_fds[1], -1)} {}

Pump& Pump::operator=(Pump&& other) noexcept
{
  if (this != &other) {
    close();
    m_fds[0] = std::exchange(other.m_fds[0], -1);
    m_fds[1] = std::exchange(other.m_fds[1], -1);
  }
  return *this;
}

void Pump::close()
{
  close_fd(m_fds[0]);
  close_fd(m_fds[1]);
}

void Pump::take(int& fd, const Sink& sink)
{
  char buf[k_chunk];
  for (int reads = 0; fd >= 0 && reads < k_reads_per_pump;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      ++reads;
      if (sink) {
        sink(std::string_view(buf, static_cast<size_t>(got)));
      }
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else if (got < 0 && errno == EAGAIN) {
      return;
    } else {
      close_fd(fd); // its end, or an error that will not pass
    }
  }
}

bool Pump::pump(std::chrono::milliseconds wait, const Sink& out, const Sink& err, int also)
{
  // A negative descriptor is skipped by poll: with nothing open it still waits.
  pollfd fds[3] = {{m_fds[0], POLLIN, 0}, {m_fds[1], POLLIN, 0}, {also, POLLIN, 0}};
  const int n = ::poll(fds, 3, static_cast<int>(std::max<long long>(0, wait.count())));
  take(m_fds[0], out);
  take(m_fds[1], err);
  return n > 0 && also >= 0 && fds[2].revents != 0;
}

void Pump::drain(std::chrono::milliseconds limit, const Sink& out, const Sink& err)
{
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + limit;
  while (open()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) {
      return;
    }
    pump(left, out, err);
  }
}

} // namespace zl::util
