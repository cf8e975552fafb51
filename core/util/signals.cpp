#include "util/signals.hpp"

#include <csignal>
#include <iterator>

namespace zl::util {

namespace {

volatile std::sig_atomic_t g_pgid = 0;
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_count = 0;
const int k_signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_old[std::size(k_signals)];
struct sigaction g_old_pipe;

extern "C" void forward(int sig)
{
  g_signal = sig;
  g_count = g_count + 1;
  if (g_pgid > 0) {
    ::kill(-g_pgid, sig);
  }
}

} // namespace

SignalForwarding::SignalForwarding()
{
  g_signal = 0;
  g_count = 0;
  g_pgid = 0;
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

} // namespace zl::util
