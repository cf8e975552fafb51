#include "results/parse/telemetry_file.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace zl::results::parse {

namespace {

struct Window
{
  double from = std::numeric_limits<double>::infinity();
  double to = -std::numeric_limits<double>::infinity();
  bool empty() const { return from > to; }
};

// When a row was timed: from its first sample's start to its last sample's end, both sides.
Window window_of(const Run& run, const Row& row)
{
  Window w;
  for (const bool gems : {false, true}) {
    const auto* s = run.samples_of(row, gems);
    if (s == nullptr || s->at_s.empty()) {
      continue;
    }
    w.from = std::min(w.from, s->t0);
    w.to = std::max(w.to, s->t0 + static_cast<double>(*std::max_element(s->at_s.begin(), s->at_s.end())));
  }
  return w;
}

} // namespace

void mark_throttled(Run& run, const std::vector<devices::Reading>& readings)
{
  // The readings that say the device was slowed, in time order: a row asks only for those.
  std::vector<std::pair<double, std::string>> slowed;
  for (const auto& r : readings) {
    if (r.phase == devices::Phase::during) {
      if (auto cause = devices::throttle_cause(r)) {
        slowed.emplace_back(r.at, std::move(*cause));
      }
    }
  }
  std::sort(slowed.begin(), slowed.end());
  run.info.throttled_rows = 0, run.info.unplaced_rows = 0;
  if (slowed.empty()) {
    return;
  }
  for (auto& row : run.rows) {
    const auto w = window_of(run, row);
    if (w.empty()) {
      // No samples (an older zl, a lost samples.bin): the device was slowed while the run ran,
      // and nothing says whether this row was timed then.
      run.info.unplaced_rows += row.measured() ? 1U : 0U;
      run.info.unplaced_cause = slowed.front().second;
      continue;
    }
    const auto it = std::lower_bound(slowed.begin(), slowed.end(), std::make_pair(w.from, std::string()));
    if (it != slowed.end() && it->first <= w.to) {
      row.throttled = true;
      ++run.info.throttled_rows;
      if (run.info.throttle_cause.empty()) {
        run.info.throttle_cause = it->second;
      }
    }
  }
}

} // namespace zl::results::parse
