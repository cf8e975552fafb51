// How zl stops a child: the first signal (SIGTERM, or the stop signal zl itself received), a grace
// period to end in order and write down what happened, then SIGKILL. util::run, the leftovers'
// ending, the warm worker and executor all follow this one clock.
#pragma once

#include <chrono>
#include <csignal>
#include <optional>

namespace zl::util {

// How long a stopped program may take to end after SIGTERM (or the forwarded Ctrl-C) before
// SIGKILL. ZL_STOP_GRACE_S (seconds, may be fractional) overrides it.
inline constexpr std::chrono::milliseconds k_stop_grace{10000};
std::chrono::milliseconds stop_grace();
// How long a supervisor of a zl child waits after its TERM before KILL: long enough for that
// zl to do its own escalation and write down what happened.
std::chrono::milliseconds outer_stop_grace();

// TERM -> grace -> KILL as one state: which signal a stop sends now, and when KILL follows.
// Plain data, no clock of its own: the caller passes `now`, so it is tested without sleeping.
class Escalation
{
public:
  using Clock = std::chrono::steady_clock;
  explicit Escalation(std::chrono::milliseconds grace = stop_grace());
  // Starts stopping at `now` with `first` (SIGTERM, or a forwarded SIGINT/SIGHUP); no effect once
  // begun. The grace is counted from `now`, which may be a moment past.
  void begin(Clock::time_point now, int first = SIGTERM);
  // A second stop request: KILL is due at once (begins too when not begun, `first` still first).
  void hurry(Clock::time_point now);
  // The signal to send now, each at most once: `first` right after begin, SIGKILL once the grace
  // has passed since begin (or at once after hurry); 0 when nothing is due. Call it until it
  // gives 0 to send everything due at once, in order.
  int due(Clock::time_point now);
  // Where the stop stands at `now`, whatever was handed out: 0 before begin, `first` within the
  // grace, SIGKILL after it. For sweeps over processes that come and go (leftovers), where each
  // new one gets the signal of the moment.
  int stage(Clock::time_point now) const;
  bool begun() const { return m_begun.has_value(); }
  bool killed() const { return m_killed; } // SIGKILL was handed out by due()
  // When due() next returns non-zero (for poll timeouts); nullopt when nothing more will come.
  std::optional<Clock::time_point> next() const;
  std::chrono::milliseconds grace() const { return m_grace; }

private:
  std::chrono::milliseconds m_grace;
  std::optional<Clock::time_point> m_begun;
  Clock::time_point m_kill_at;
  int m_first = SIGTERM;
  bool m_first_sent = false;
  bool m_killed = false;
};

} // namespace zl::util
