// Reading a child's standard output and error as it writes them, over poll: what util::run and a
// warm worker (core/exec/worker.cpp) both do while they wait for the child.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

namespace zl::util {

using Sink = std::function<void(std::string_view)>;

// Owns the read ends of a child's output pipes and passes what they hold to sinks; a pipe is
// closed at its end (the child and whatever inherited it have closed it).
class Pump
{
public:
  Pump() = default;
  // Takes out_fd and err_fd (either may be -1) and makes them non-blocking.
  Pump(int out_fd, int err_fd);
  ~Pump() { close(); }
  Pump(Pump&& other) noexcept;
  Pump& operator=(Pump&& other) noexcept;
  Pump(const Pump&) = delete;
  Pump& operator=(const Pump&) = delete;

  // Whether either pipe is still open.
  bool open() const { return m_fds[0] >= 0 || m_fds[1] >= 0; }
  // Waits at most `wait` for output, or for `also` (a descriptor the caller reads itself: a
  // worker's replies) to be readable, then passes what the pipes hold to out and err (an empty
  // sink discards). Waits the whole `wait` when nothing is open: callers tick by it. Returns
  // whether `also` is readable.
  bool pump(std::chrono::milliseconds wait, const Sink& out, const Sink& err, int also = -1);
  // Reads until both pipes end or `limit` has passed: a leftover of the child may hold them open.
  void drain(std::chrono::milliseconds limit, const Sink& out, const Sink& err);
  void close();

private:
  // Reads what fd holds now into sink; closes it at its end.
  static void take(int& fd, const Sink& sink);

  int m_fds[2] = {-1, -1};
};

} // namespace zl::util
