#include "batch/progress.hpp"

#include "util/output.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace zl::batch {

namespace {

std::string clock_text(double seconds)
{
  const auto s = std::llround(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

const char* ansi_color(results::Tone tone)
{
  switch (tone) {
  case results::Tone::ok:
    return "32"; // green
  case results::Tone::declined:
    return "36"; // cyan
  case results::Tone::stopped:
    return "33"; // yellow
  case results::Tone::failed:
    break;
  }
  return "31"; // red
}

} // namespace

std::string makespan_text(double makespan_s, double total_work_s, size_t devices)
{
  const size_t n = devices == 0 ? 1 : devices;
  const double ideal = total_work_s / static_cast<double>(n);
  return fmt::format("zl batch: makespan {:.1f} s against an ideal {:.1f} s (total work {:.1f} s / {} devices){}",
                     makespan_s, ideal, total_work_s, n,
                     ideal >= 1 && makespan_s >= 0 ? fmt::format(": {:.2f}x", makespan_s / ideal)
                                                   : std::string(": too short to compare"));
}

Progress::Progress(size_t total, size_t devices)
  : m_total(total), m_devices(devices == 0 ? 1 : devices), m_tty(util::out().terminal())
{
  const char* no_color = std::getenv("NO_COLOR");
  m_color = m_tty && (no_color == nullptr || *no_color == '\0');
}

void Progress::line(const std::string& text)
{
  // On a terminal the status line is cleared first, so the plain line scrolls above it.
  util::out().say(fmt::format("{}{}\n", m_tty ? "\r\033[K" : "", text));
}

std::string Progress::color(results::OpState status, std::string_view text) const
{
  if (!m_color) {
    return std::string(text);
  }
  return fmt::format("\033[{}m{}\033[0m", ansi_color(results::tone(status)), text);
}

void Progress::started(const std::string& op, unsigned device)
{
  m_running[op] = {device, std::chrono::steady_clock::now()};
  if (!m_tty) {
    line(fmt::format("zl batch: start {} on device {}", op, device));
  }
}

void Progress::finished(const std::string& op, results::OpState status, double seconds, long long rows,
                        std::optional<unsigned> device)
{
  m_running.erase(op);
  ++m_done;
  m_work_done += seconds;
  if (!device) {
    return; // kept from an earlier attempt (--resume)
  }
  line(fmt::format("zl batch: [{}/{}] {} {} on device {} ({:.1f} s, {} rows)", m_done, m_total, op,
                   color(status, results::name(status)), *device, seconds, rows));
}

void Progress::note(const std::string& text)
{
  line("zl batch: " + text);
}

void Progress::refresh(size_t pending)
{
  m_pending = pending;
  if (!m_tty) {
    return;
  }
  std::vector<std::string> running;
  double left = 0;
  const double mean = m_done > 0 ? m_work_done / static_cast<double>(m_done) : 0;
  for (const auto& [op, dev_start] : m_running) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - dev_start.second).count();
    running.push_back(fmt::format("{}@{} {}", op, dev_start.first, clock_text(elapsed)));
    left += mean > elapsed ? mean - elapsed : 0;
  }
  left += mean * static_cast<double>(pending);
  const auto eta = m_done > 0 ? "ETA " + clock_text(left / static_cast<double>(m_devices)) : std::string("ETA ?");
  util::out().say(fmt::format("\r\033[K[{}/{}] {} | {}", m_done, m_total, util::join(running, ", "), eta));
}

void Progress::done(double makespan_s, double total_work_s)
{
  line(makespan_text(makespan_s, total_work_s, m_devices));
}

} // namespace zl::batch
