// What a campaign tells the person watching: a live status line on a terminal (done/total,
// running ops and their devices, ETA), plain lines otherwise. NO_COLOR is honoured.
#pragma once

#include "results/op_state.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace zl::batch {

// The closing line's text. The ratio is left out when the ideal is under a second: ops that
// took no time (refused at preflight) would make start-up cost read as a "13x" slowdown.
std::string makespan_text(double makespan_s, double total_work_s, size_t devices);

class Progress
{
public:
  Progress(size_t total, size_t devices);

  void started(const std::string& op, unsigned device);
  void finished(const std::string& op, results::OpState status, double seconds, long long rows,
                std::optional<unsigned> device);
  void note(const std::string& text);
  // Redraws the status line (terminal only). pending: ops not started yet.
  void refresh(size_t pending);
  // The closing line: makespan against the ideal (total work / devices).
  void done(double makespan_s, double total_work_s);

private:
  void line(const std::string& text);
  std::string color(results::OpState status, std::string_view text) const;

  size_t m_total;
  size_t m_devices;
  size_t m_done = 0;
  double m_work_done = 0;
  bool m_tty;
  bool m_color;
  std::map<std::string, std::pair<unsigned, std::chrono::steady_clock::time_point>> m_running;
  size_t m_pending = 0;
};

} // namespace zl::batch
