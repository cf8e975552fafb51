// What zl summary says of the samples: per group, and every row with --rows.
#include "results/text/format.hpp"

#include "util/json.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace zl::results::text {

using namespace compare;

namespace {

constexpr std::size_t k_listed = 50;

std::string percent(double v)
{
  return has_value(v) ? fmt::format("{:.2f}%", v * 100) : "-";
}

std::string share(long long part, long long whole)
{
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole)) : "-";
}

} // namespace

void append_sample_columns(Table& t, const Summary& s, Format f)
{
  if (s.total.throttled > 0) { // only where some row was slowed: a column of zeros says nothing
    t.header.push_back(f == Format::csv ? "throttled" : "THROTTLED");
    t.right.push_back(true);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      t.rows[i].push_back(std::to_string((i < s.groups.size() ? s.groups[i] : s.total).throttled));
    }
  }
  if (s.total.sampled == 0) {
    return;
  }
  const bool csv = f == Format::csv;
  for (const auto& [lower, upper] :
       {std::pair{"sampled", "SAMPLED"}, {"noise", "NOISE"}, {"warned", "WARNED"}, {"capped", "CAPPED"}}) {
    t.header.push_back(csv ? lower : upper);
    t.right.push_back(true);
  }
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto& g = i < s.groups.size() ? s.groups[i] : s.total;
    auto& row = t.rows[i];
    row.push_back(std::to_string(g.sampled));
    row.push_back(csv ? (has_value(g.noise) ? fmt::format("{}", g.noise) : "") : percent(g.noise));
    row.push_back(std::to_string(g.warned));
    row.push_back(std::to_string(g.capped));
  }
}

std::string unplaced_notes(const Summary& s, bool md)
{
  if (s.unplaced_rows == 0) {
    return {};
  }
  return fmt::format("{}telemetry: {} rows have no samples to place them in time, in runs whose device was slowed "
                     "while they ran ({}): whether they were timed throttled is unknown.\n",
                     md ? "\n" : "", s.unplaced_rows, s.unplaced_cause);
}

std::string telemetry_notes(const Summary& s, bool md)
{
  if (s.telemetry_runs == 0) {
    return {};
  }
  if (s.total.throttled == 0) {
    return fmt::format("{}telemetry: {} of {} runs read the device's state; no row {} timed on a throttled device.\n",
                       md ? "\n" : "", s.telemetry_runs, s.runs, s.unplaced_rows ? "is known to have been" : "was") +
           unplaced_notes(s, md);
  }
  return fmt::format("{}telemetry: {} rows were timed while the device was throttled (first: {}); zl summary --ab "
                     "leaves them out of its verdicts unless --keep-throttled.\n",
                     md ? "\n" : "", s.total.throttled, s.throttle_cause) +
         unplaced_notes(s, md);
}

std::string samples_notes(const Summary& s, bool md)
{
  if (s.total.sampled == 0) {
    return telemetry_notes(s, md);
  }
  const auto& t = s.total;
  std::string out =
      telemetry_notes(s, md) +
      fmt::format(
          "{}samples: {} of {} rows kept FlagGems' samples (samples.bin); NOISE is the median over them of IQR / "
          "median; "
          "{} ({}) stopped sampling at a cap before the median's interval reached --sampling's width; {} warn.\n",
          md ? "\n" : "", t.sampled, t.measured, t.capped, share(t.capped, t.sampled), t.warned);
  if (s.unstable.empty()) {
    return out;
  }
  out += fmt::format("{}unstable rows (noisy: IQR above {:.0f}% of the median; outliers: {:.0f}% or more beyond 3 "
                     "IQR and {:.0f}% off the median; short: a sample under {} ms; few: under {} samples):\n",
                     md ? "\n" : "", k_noisy * 100, k_outlier_share * 100, k_far * 100, k_short_ms, k_few);
  for (std::size_t i = 0; i < s.unstable.size() && i < k_listed; ++i) {
    const auto& u = s.unstable[i];
    out += fmt::format("{}{} {} {} [{}] {}: noise {}, n {}\n", md ? "- " : "  ", u.op, u.dtype.empty() ? "-" : u.dtype,
                       u.shape, u.side, warnings_text(u.stats.warnings), percent(u.stats.noise()), u.stats.n);
  }
  if (s.unstable.size() > k_listed) {
    out += fmt::format("{}… and {} more (--rows lists every row)\n", md ? "- " : "  ", s.unstable.size() - k_listed);
  }
  return out;
}

void json_samples(util::JsonWriter& j, const GroupSummary& g)
{
  j.field("sampled", g.sampled);
  j.key("noise");
  has_value(g.noise) ? j.w().Double(g.noise) : j.w().Null();
  j.field("warned", g.warned);
  j.field("capped", g.capped);
  j.field("throttled", g.throttled);
}

void json_unstable(util::JsonWriter& j, const Summary& s)
{
  auto& w = j.w();
  j.key("unstable");
  w.StartArray();
  for (const auto& u : s.unstable) {
    w.StartObject();
    j.field("op", std::string(u.op)), j.field("dtype", std::string(u.dtype)), j.field("shape", std::string(u.shape));
    j.field("side", std::string(u.side)), j.field("warnings", warnings_text(u.stats.warnings));
    j.field("noise", u.stats.noise()), j.field("n", u.stats.n);
    w.EndObject();
  }
  w.EndArray();
}

} // namespace zl::results::text
