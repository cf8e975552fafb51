#include "util/signals.hpp"

#include "util/error.hpp"

#include <atomic>
#include <csignal>
#include <iterator>

namespace zl::util {

namespace {

// Lock-free atomics are async-signal-safe; plain sig_atomic_t would lose a count when two
// signals are handled at once on two threads.
using Counter = std::atomic<int>;
static_assert(Counter::is_always_lock_free);

const int k_signals[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<bool> g_alive{false};
Counter g_pgid{0};
Counter g_signal{0};
Counter g_count{0};
Counter g_counts[std::size(k_signals)];
struct sigaction g_old[std::size(k_signals)];
struct sigaction g_old_pipe;

// k_signals' index of sig, or -1.
int index_of(int sig)
{
  for (size_t i = 0; i < std::size(k_signals); ++i) {
    if (k_signals[i] == sig) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

extern "C" void forward(int sig)
{
  g_signal = sig;
  if (const int i = index_of(sig); i >= 0) {
    g_counts[i].fetch_add(1);
  }
  g_count.fetch_add(1);
  if (const int pgid = g_pgid; pgid > 0) {
    ::kill(-pgid, sig);
  }
}

} // namespace

SignalForwarding::SignalForwarding()
{
  if (g_alive.exchange(true)) {
    // A second instance would save the first one's handlers as "previous" and reset its counts.
    throw Error("internal error: a second util::SignalForwarding while one is alive (core/util/signals.hpp)",
                k_exit_internal);
  }
  g_signal = 0;
  g_count = 0;
  g_pgid = 0;
  for (auto& c : g_counts) {
    c = 0;
  }
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &g_old_pipe);
  struct sigaction sa = {};
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(k_signals); ++i) {
    ::sigaction(k_signals[i], &sa, &g_old[i]);
  }
}

SignalForwarding::~SignalForwarding()
{
  for (size_t i = 0; i < std::size(k_signals); ++i) {
    ::sigaction(k_signals[i], &g_old[i], nullptr);
  }
  ::sigaction(SIGPIPE, &g_old_pipe, nullptr);
  g_pgid = 0;
  g_alive = false;
}

void SignalForwarding::watch(int pgid)
{
  g_pgid = pgid;
}

int SignalForwarding::signal() const
{
  return g_signal;
}

int SignalForwarding::count() const
{
  return g_count;
}

int SignalForwarding::count(int sig) const
{
  const int i = index_of(sig);
  return i >= 0 ? g_counts[i].load() : 0;
}

} // namespace zl::util
