// The history view's data: the store's campaigns of one caliber side by side, one line a series
// (op, dtype, size, device), and the change points zl history finds in it.
#include "report/data.hpp"

#include "results/history/series.hpp"
#include "results/store/store.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace zl::report {

namespace {

using results::Run;
using results::history::Campaign;

using results::history::Series;

// Campaigns before the drawn ones that change points are found over too: a level needs
// ChangepointOptions::min_segment points before a change for it to be found (4).
constexpr std::size_t k_context = 4;

void write_changes(Json& j, const results::history::History& found, const Series& s, std::size_t first)
{
  auto& w = j.w();
  w.StartArray(); // [[campaign #, "slower"|"faster", relative, confirmed, what changed], …]
  for (const auto& c : found.changes) {
    if (c.series.device == s.id.device && c.series.op == s.id.op && c.series.dtype == s.id.dtype &&
        c.series.shape == s.id.shape && c.point.campaign >= first) {
      w.StartArray();
      w.Uint64(c.point.campaign - first);
      j.str(c.point.direction == results::history::Direction::slower ? "slower" : "faster");
      j.num(c.point.relative), w.Bool(c.point.confirmed), j.str(results::history::changed_text(c.changed));
      w.EndArray();
    }
  }
  w.EndArray();
}

// The series of each op and dtype, sizes in the order the runs printed them (a text sort would put
// 128 before 64), then by device.
std::map<std::pair<std::string, std::string>, std::vector<const Series*>> charts_of(const std::vector<Campaign>& window,
                                                                                    const std::vector<Series>& series)
{
  std::map<std::tuple<std::string_view, std::string_view, std::string_view>, std::size_t> seen;
  for (const auto& c : window) {
    for (const auto& run : c.runs) {
      for (const auto& r : run.rows) {
        seen.try_emplace({r.op(), r.dtype(), r.shape}, seen.size());
      }
    }
  }
  const auto order = [&](const Series* s) {
    const auto it = seen.find({s->id.op, s->id.dtype, s->id.shape});
    return std::pair(it == seen.end() ? seen.size() : it->second, std::string_view(s->id.device));
  };
  std::map<std::pair<std::string, std::string>, std::vector<const Series*>> charts;
  for (const auto& s : series) {
    charts[{s.id.op, s.id.dtype}].push_back(&s);
  }
  for (auto& [key, lines] : charts) {
    std::stable_sort(lines.begin(), lines.end(), [&](const Series* a, const Series* b) { return order(a) < order(b); });
  }
  return charts;
}

bool several_devices(const std::vector<Series>& series)
{
  return std::any_of(series.begin(), series.end(),
                     [&](const Series& s) { return s.id.device != series.front().id.device; });
}

// window: the campaigns drawn (from first on), after up to k_context of the store's campaigns
// before them: the change points of each series (zl history's, over the whole window), drawn on
// its line where they fall among the drawn.
void write_group(Json& j, const std::vector<Campaign>& window, std::size_t first, const std::string& caliber,
                 std::size_t* cut)
{
  auto& w = j.w();
  const auto series = results::history::build_series(window, caliber);
  results::history::History found;
  results::history::check(found, series, window);
  j.key("campaigns");
  w.StartArray();
  for (auto c = first; c < window.size(); ++c) {
    w.StartArray();
    j.str(shown(window[c].path, cut)), j.str(window[c].started);
    w.EndArray();
  }
  w.EndArray();
  j.key("before"); // [path, started] of the campaign just before the first drawn, or null
  if (first == 0) {
    w.Null();
  } else {
    w.StartArray();
    j.str(shown(window[first - 1].path, cut)), j.str(window[first - 1].started);
    w.EndArray();
  }
  j.key("charts"); // [op, dtype, [[size, [values per campaign], changes], …]]
  w.StartArray();
  const auto several = several_devices(series);
  for (const auto& [key, lines] : charts_of(window, series)) {
    w.StartArray();
    j.str(shown(key.first, cut)), j.str(shown(key.second, cut));
    w.StartArray();
    for (const auto* s : lines) {
      std::vector<double> values(window.size() - first, results::k_na);
      for (const auto& p : s->points) {
        if (p.campaign >= first) {
          values[p.campaign - first] = p.value;
        }
      }
      w.StartArray();
      j.str(shown(several ? s->id.shape + " on " + s->id.device : s->id.shape, cut));
      w.StartArray();
      for (const auto v : values) {
        j.num(v);
      }
      w.EndArray();
      write_changes(j, found, *s, first);
      w.EndArray();
    }
    w.EndArray();
    w.EndArray();
  }
  w.EndArray();
}

} // namespace

std::string campaign_of(const std::string& run_path)
{
  return results::history::campaign_of(run_path);
}

namespace {

struct Loaded
{
  std::vector<Run> runs;
  std::map<std::string, std::size_t> campaigns; // per caliber key: how many the store holds
};

// The runs of the last n campaigns of each caliber, chosen from the runs table alone: the page
// costs what it shows, not the store.
Loaded last_campaigns(const results::store::Store& store, std::size_t n)
{
  Loaded out;
  auto infos = store.load_infos();
  std::set<std::string> paths;
  for (const auto& c : group_by_caliber(infos)) {
    std::vector<Run> mine;
    for (const auto i : c.runs) {
      mine.push_back(std::move(infos[i]));
    }
    const auto campaigns = results::history::campaigns_of(std::move(mine));
    out.campaigns[c.key] = campaigns.size();
    const auto keep = std::min(campaigns.size(), n);
    for (auto it = campaigns.end() - static_cast<std::ptrdiff_t>(keep); it != campaigns.end(); ++it) {
      for (const auto& r : it->runs) {
        paths.insert(r.info.path);
      }
    }
  }
  out.runs = store.load({paths.begin(), paths.end()});
  return out;
}

} // namespace

void write_history(Json& j, const results::store::Store& store, std::size_t n, std::size_t* cut)
{
  auto loaded = last_campaigns(store, n + k_context);
  auto& runs = loaded.runs;
  // Campaigns, then each campaign's calibers: a campaign of two calibers is two points, one on
  // each caliber's lines.
  std::map<std::string, std::vector<Campaign>> by_caliber; // caliber key -> its campaigns, oldest first
  std::map<std::string, CaliberInfo> infos;
  for (const auto& c : group_by_caliber(runs)) {
    infos[c.key] = c;
    std::vector<Run> mine;
    for (const auto i : c.runs) {
      mine.push_back(std::move(runs[i]));
    }
    by_caliber[c.key] = results::history::campaigns_of(std::move(mine));
  }
  auto& w = j.w();
  w.StartObject();
  j.field("n", n);
  j.field("runs", runs.size());
  j.key("calibers");
  w.StartArray();
  for (auto& [key, campaigns] : by_caliber) {
    const auto total = campaigns.size();
    const auto keep = std::min(total, n + k_context);
    std::vector<Campaign> window(std::make_move_iterator(campaigns.end() - static_cast<std::ptrdiff_t>(keep)),
                                 std::make_move_iterator(campaigns.end()));
    w.StartObject();
    j.key("caliber");
    write_caliber(j, infos[key]);
    j.field("campaigns_in_store", loaded.campaigns[key]);
    write_group(j, window, keep - std::min(keep, n), key, cut);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

} // namespace zl::report
