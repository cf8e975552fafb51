#include "results/history/series.hpp"

#include "results/compare/ab.hpp"
#include "util/json.hpp"

#include <boost/filesystem/path.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace zl::results::history {

namespace {

// One series' rows in one campaign.
struct Gathered
{
  const Run* run = nullptr;
  std::string_view shape;
  std::vector<double> values, lo, hi;
};

// Device, op, dtype, canonical shape.
using Key = std::tuple<std::string, std::string, std::string, std::string>;

void gather(const Run& run, std::map<Key, Gathered>& here)
{
  const auto& device = run.info.device_uuid.empty() ? run.info.device_name : run.info.device_uuid;
  for (const auto& r : run.rows) {
    if (!r.measured()) {
      continue;
    }
    auto& g = here[Key{device, std::string(r.op()), std::string(r.dtype()), compare::canonical_shape(r.shape)}];
    if (g.run == nullptr) {
      g.run = &run, g.shape = r.shape;
    }
    g.values.push_back(r.gems_ms);
    // Fewer samples than k_few give no interval (it is the median itself): none is better.
    const auto* s = run.samples_of(r);
    if (s != nullptr && s->stats.n >= k_few && s->stats.ci_lo > 0 && std::isfinite(s->stats.ci_hi)) {
      g.lo.push_back(s->stats.ci_lo), g.hi.push_back(s->stats.ci_hi);
    }
  }
}

void put(std::vector<Difference>& out, Field field, const std::string& before, const std::string& after,
         const std::string& module = {})
{
  if (before != after) {
    out.push_back({field, module, before, after});
  }
}

const char* field_name(Field f)
{
  switch (f) {
  case Field::flaggems_commit:
    return "flaggems_commit";
  case Field::version:
    return "version";
  case Field::zl_version:
    return "zl_version";
  case Field::backend_version:
    return "backend_version";
  case Field::driver:
    return "driver";
  case Field::device_state:
    return "device_state";
  }
  return "unknown";
}

std::string where(const SeriesId& id, bool several)
{
  const auto base = fmt::format("{} {} {}", id.op, id.dtype, id.shape);
  return several ? fmt::format("{} on {} ({})", base, id.device.empty() ? "?" : id.device, id.caliber) : base;
}

void write_id(util::JsonWriter& j, const SeriesId& id)
{
  j.field("op", id.op), j.field("dtype", id.dtype), j.field("shape", id.shape), j.field("device", id.device);
  j.field("caliber", id.caliber);
}

void write_changed(util::JsonWriter& j, const std::optional<std::vector<Difference>>& changed)
{
  j.key("changed"); // null: an identity was missing, so nothing can be said
  if (!changed) {
    j.w().Null();
    return;
  }
  j.w().StartArray();
  for (const auto& d : *changed) {
    j.w().StartObject();
    j.field("field", field_name(d.field));
    j.nullable("module", d.module);
    j.field("before", d.before), j.field("after", d.after);
    j.w().EndObject();
  }
  j.w().EndArray();
}

} // namespace

std::string changed_text(const std::optional<std::vector<Difference>>& changed)
{
  if (!changed) {
    return "no identity recorded to compare";
  }
  if (changed->empty()) {
    return "nothing recorded changed";
  }
  std::string out;
  for (const auto& d : *changed) {
    out += fmt::format("{}{} {} -> {}", out.empty() ? "" : ", ", label(d), d.before.empty() ? "none" : d.before,
                       d.after.empty() ? "none" : d.after);
  }
  return out;
}

std::string campaign_of(const std::string& run_path)
{
  auto parent = boost::filesystem::path(run_path).parent_path();
  static const std::regex round("round-[0-9]+");
  if (std::regex_match(parent.filename().string(), round)) {
    parent = parent.parent_path();
  }
  return parent.string();
}

std::vector<Campaign> campaigns_of(std::vector<Run> runs)
{
  std::map<std::string, Campaign> by_path;
  for (auto& run : runs) {
    auto& campaign = by_path[campaign_of(run.info.path)];
    const auto& started = run.info.started_at;
    if (campaign.runs.empty() || (!started.empty() && (campaign.started.empty() || started < campaign.started))) {
      campaign.started = started;
    }
    campaign.runs.push_back(std::move(run));
  }
  std::vector<Campaign> out;
  for (auto& [path, c] : by_path) {
    c.path = path;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const Campaign& x, const Campaign& y) {
    return std::tie(x.started, x.path) < std::tie(y.started, y.path);
  });
  return out;
}

std::vector<Series> build_series(const std::vector<Campaign>& campaigns, const std::string& caliber)
{
  std::map<Key, Series> all;
  for (std::size_t c = 0; c < campaigns.size(); ++c) {
    std::map<Key, Gathered> here;
    for (const auto& run : campaigns[c].runs) {
      gather(run, here);
    }
    for (auto& [key, g] : here) {
      auto [it, fresh] = all.try_emplace(key);
      auto& s = it->second;
      if (fresh) {
        s.id = {caliber, std::get<0>(key), std::get<1>(key), std::get<2>(key), std::string(g.shape)};
      }
      Point p;
      p.value = median_in_place(g.values);
      p.campaign = c;
      if (!g.lo.empty()) { // the median of each end: lo_i <= hi_i keeps the order of the medians
        p.ci_lo = median_in_place(g.lo), p.ci_hi = median_in_place(g.hi);
      }
      s.points.push_back(p);
      s.runs.push_back(g.run);
    }
  }
  std::vector<Series> out;
  out.reserve(all.size());
  for (auto& entry : all) {
    out.push_back(std::move(entry.second));
  }
  return out;
}

std::string label(const Difference& d)
{
  switch (d.field) {
  case Field::flaggems_commit:
    return "FlagGems commit";
  case Field::version:
    return d.module + " version";
  case Field::zl_version:
    return "zl version";
  case Field::backend_version:
    return "backend version";
  case Field::driver:
    return "driver";
  case Field::device_state:
    return "device state";
  }
  return "unknown";
}

std::vector<Difference> what_changed(const run::Identity& before, const run::Identity& after)
{
  std::vector<Difference> out;
  put(out, Field::flaggems_commit, before.flaggems_commit, after.flaggems_commit);
  std::map<std::string, std::pair<std::string, std::string>> versions; // module -> before, after
  for (const auto& [module, v] : before.versions) {
    versions[module].first = v;
  }
  for (const auto& [module, v] : after.versions) {
    versions[module].second = v;
  }
  for (const auto& [module, v] : versions) {
    put(out, Field::version, v.first, v.second, module);
  }
  put(out, Field::zl_version, before.zl_version, after.zl_version);
  put(out, Field::backend_version, before.backend.version, after.backend.version);
  put(out, Field::driver, before.driver, after.driver);
  put(out, Field::device_state, before.device_state, after.device_state);
  return out;
}

std::optional<std::vector<Difference>> what_changed(const Run& before, const Run& after)
{
  const auto a = run::try_parse_identity(before.info.identity_json);
  const auto b = run::try_parse_identity(after.info.identity_json);
  if (!a || !b) {
    return std::nullopt;
  }
  return what_changed(*a, *b);
}

void check(History& history, const std::vector<Series>& series, const std::vector<Campaign>& campaigns,
           const ChangepointOptions& options)
{
  for (const auto& s : series) {
    ++history.series_checked;
    const auto found = find_changes(s.points, options);
    for (const auto& cp : found.changes) {
      const auto& at = campaigns[cp.campaign];
      const auto prior = s.points[cp.index - 1].campaign; // a change starts a level: index >= 1
      history.changes.push_back({s.id, cp, at.path, at.started, campaigns[prior].path,
                                 what_changed(*s.runs[cp.index - 1], *s.runs[cp.index]),
                                 cp.index + options.min_segment >= s.points.size()});
    }
    if (found.drift) {
      const auto& d = *found.drift;
      const auto steps = static_cast<double>(d.last_index - d.first_index);
      history.drifts.push_back({s.id, d, campaigns[d.first_campaign].path, campaigns[d.last_campaign].path,
                                std::pow(1 + d.slope, steps) - 1,
                                what_changed(*s.runs[d.first_index], *s.runs[d.last_index])});
    }
    if (history.list_all && found.changes.empty() && !found.drift && !s.points.empty()) {
      history.quiet.push_back({s.id, s.points.size(), s.points.back().value});
    }
  }
}

std::size_t regressions(const History& history, double pct)
{
  const auto over = [&](double relative) { return relative * 100 > pct; };
  std::size_t n = 0;
  for (const auto& c : history.changes) {
    n += c.recent && c.point.confirmed && c.point.direction == Direction::slower && over(c.point.relative);
  }
  for (const auto& d : history.drifts) {
    n += d.drift.slope > 0 && over(d.total);
  }
  return n;
}

std::string format_text(const History& history)
{
  std::set<std::pair<std::string, std::string>> places; // caliber, device: named when several
  for (const auto& c : history.changes) {
    places.emplace(c.series.caliber, c.series.device);
  }
  for (const auto& d : history.drifts) {
    places.emplace(d.series.caliber, d.series.device);
  }
  for (const auto& q : history.quiet) {
    places.emplace(q.series.caliber, q.series.device);
  }
  const bool several = places.size() > 1;
  std::string out;
  std::size_t confirmed = 0;
  for (const auto& c : history.changes) {
    const auto& p = c.point;
    confirmed += p.confirmed;
    out += fmt::format("{} at {}{}: {:.6g} -> {:.6g} ms, {:+.1f}% {}, {}{}{}; {}\n", where(c.series, several),
                       c.campaign, c.started.empty() ? "" : " (" + c.started + ")", p.before, p.after, p.relative * 100,
                       p.direction == Direction::slower ? "slower" : "faster", p.confirmed ? "confirmed" : "tentative",
                       p.in_drift ? ", in a drift" : "", c.recent ? ", new" : "", changed_text(c.changed));
  }
  for (const auto& d : history.drifts) {
    out += fmt::format("{} drifts from {} to {}: {:+.2f}% a campaign, {:+.1f}% over {} campaigns, {}; {}\n",
                       where(d.series, several), d.first_campaign, d.last_campaign, d.drift.slope * 100, d.total * 100,
                       d.drift.last_index - d.drift.first_index + 1, d.drift.slope > 0 ? "slower" : "faster",
                       changed_text(d.changed));
  }
  for (const auto& q : history.quiet) {
    out += fmt::format("{}: no change over {} campaign{}, now {:.6g} ms\n", where(q.series, several), q.points,
                       q.points == 1 ? "" : "s", q.last);
  }
  out += fmt::format("zl history: {} series over {} campaign{}: {} change point{} ({} confirmed, {} tentative), {} "
                     "drift{}\n",
                     history.series_checked, history.campaigns, history.campaigns == 1 ? "" : "s",
                     history.changes.size(), history.changes.size() == 1 ? "" : "s", confirmed,
                     history.changes.size() - confirmed, history.drifts.size(), history.drifts.size() == 1 ? "" : "s");
  return out;
}

std::string format_json(const History& history)
{
  util::JsonWriter j;
  auto& w = j.w();
  w.StartObject();
  j.field("version", 1);
  j.field("series_checked", static_cast<unsigned long long>(history.series_checked));
  j.field("campaigns", static_cast<unsigned long long>(history.campaigns));
  j.key("changes");
  w.StartArray();
  for (const auto& c : history.changes) {
    w.StartObject();
    write_id(j, c.series);
    j.field("campaign", c.campaign), j.nullable("started", c.started), j.field("previous_campaign", c.previous);
    j.field("before_ms", c.point.before), j.field("after_ms", c.point.after), j.field("relative", c.point.relative);
    j.field("direction", c.point.direction == Direction::slower ? "slower" : "faster");
    j.field("confirmed", c.point.confirmed), j.field("in_drift", c.point.in_drift), j.field("new", c.recent);
    j.field("score", c.point.score);
    write_changed(j, c.changed);
    w.EndObject();
  }
  w.EndArray();
  j.key("drifts");
  w.StartArray();
  for (const auto& d : history.drifts) {
    w.StartObject();
    write_id(j, d.series);
    j.field("first_campaign", d.first_campaign), j.field("last_campaign", d.last_campaign);
    j.field("points", static_cast<unsigned long long>(d.drift.last_index - d.drift.first_index + 1));
    j.field("slope", d.drift.slope), j.field("total", d.total);
    j.field("direction", d.drift.slope > 0 ? "slower" : "faster");
    j.field("z", d.drift.z), j.field("p", d.drift.p);
    write_changed(j, d.changed);
    w.EndObject();
  }
  w.EndArray();
  if (history.list_all) {
    j.key("unchanged");
    w.StartArray();
    for (const auto& q : history.quiet) {
      w.StartObject();
      write_id(j, q.series);
      j.field("points", static_cast<unsigned long long>(q.points)), j.field("last_ms", q.last);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return j.text();
}

} // namespace zl::results::history
