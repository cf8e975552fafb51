#include "util/escalation.hpp"

#include "util/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace zl::util {

std::chrono::milliseconds stop_grace()
{
  // Read once: every stop in one zl process keeps the same promise.
  static const std::chrono::milliseconds grace = [] {
    const char* text = std::getenv("ZL_STOP_GRACE_S");
    if (text == nullptr || *text == '\0') {
      return k_stop_grace;
    }
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (*end != '\0' || !std::isfinite(seconds) || seconds < 0 || seconds > 86400) {
      out().say(fmt::format("zl: ignoring ZL_STOP_GRACE_S='{}' (seconds, 0 to 86400); the grace period is {} s\n", text,
                            k_stop_grace.count() / 1000));
      return k_stop_grace;
    }
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }();
  return grace;
}

std::chrono::milliseconds outer_stop_grace()
{
  // The inner zl's grace for the benchmark, then for what the benchmark left, then slack.
  return 2 * stop_grace() + std::chrono::milliseconds(5000);
}

Escalation::Escalation(std::chrono::milliseconds grace) : m_grace(grace) {}

void Escalation::begin(Clock::time_point now, int first)
{
  if (m_begun) {
    return;
  }
  m_begun = now;
  m_first = first;
  m_kill_at = now + m_grace;
}

void Escalation::hurry(Clock::time_point now)
{
  begin(now);
  m_kill_at = std::min(m_kill_at, now);
}

int Escalation::due(Clock::time_point now)
{
  if (!m_begun) {
    return 0;
  }
  if (!m_first_sent) {
    m_first_sent = true;
    m_killed = m_first == SIGKILL; // nothing stronger follows
    return m_first;
  }
  if (!m_killed && now >= m_kill_at) {
    m_killed = true;
    return SIGKILL;
  }
  return 0;
}

int Escalation::stage(Clock::time_point now) const
{
  if (!m_begun) {
    return 0;
  }
  return now >= m_kill_at ? SIGKILL : m_first;
}

std::optional<Escalation::Clock::time_point> Escalation::next() const
{
  if (!m_begun || m_killed) {
    return std::nullopt;
  }
  return m_first_sent ? m_kill_at : *m_begun;
}

} // namespace zl::util
