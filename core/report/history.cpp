// The history view's data: the store's campaigns of one caliber side by side, the U test of A/B
// between each and the one before it.
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

double median(std::vector<double>& v)
{
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

using Key = std::tuple<std::string_view, std::string_view, std::string_view>; // op, dtype, Size Detail

struct Line
{
  std::vector<double> values; // per campaign; NaN where it has none
  std::vector<std::size_t> regressions;
  std::size_t order = 0; // when first met: sizes are drawn in the order the runs printed them
};

// before: the campaign just before the window, if the store has one: the first campaign drawn is
// compared with it, as every other is with the one before it.
void write_group(Json& j, std::vector<Campaign*>& campaigns, const Campaign* before,
                 const results::compare::AbOptions& o, std::size_t* cut)
{
  auto& w = j.w();
  std::map<Key, Line> lines;
  for (std::size_t c = 0; c < campaigns.size(); ++c) {
    std::map<Key, std::vector<double>> samples;
    for (const auto& run : campaigns[c]->runs) {
      for (const auto& r : run.rows) {
        if (r.measured()) {
          const Key key{r.op(), r.dtype(), r.shape};
          samples[key].push_back(r.gems_ms);
          if (const auto [at, fresh] = lines.try_emplace(key); fresh) {
            at->second.order = lines.size();
          }
        }
      }
    }
    for (auto& [key, v] : samples) {
      auto& line = lines[key];
      line.values.resize(campaigns.size(), results::k_na);
      line.values[c] = median(v);
    }
    const Campaign* previous = c == 0 ? before : campaigns[c - 1];
    if (previous == nullptr) {
      continue;
    }
    const auto ab = results::compare::compare(previous->runs, campaigns[c]->runs, o);
    for (const auto& p : ab.pairings) {
      if (p.verdict == results::compare::Verdict::slower) {
        lines[{p.op(), p.dtype(), p.shape()}].regressions.push_back(c);
      }
    }
  }
  j.key("campaigns");
  w.StartArray();
  for (const auto* c : campaigns) {
    w.StartArray();
    j.str(shown(c->path, cut)), j.str(c->started);
    w.EndArray();
  }
  w.EndArray();
  j.key("before"); // [path, started] of the campaign the first is compared with, or null
  if (before == nullptr) {
    w.Null();
  } else {
    w.StartArray();
    j.str(shown(before->path, cut)), j.str(before->started);
    w.EndArray();
  }
  j.key("charts"); // [op, dtype, [[shape, [values per campaign], [regression campaign indices]], …]]
  w.StartArray();
  for (auto it = lines.begin(); it != lines.end();) {
    const auto op = std::get<0>(it->first), dtype = std::get<1>(it->first);
    w.StartArray();
    j.str(shown(op, cut)), j.str(shown(dtype, cut));
    w.StartArray();
    std::vector<std::pair<std::string_view, Line*>> sizes;
    for (; it != lines.end() && std::get<0>(it->first) == op && std::get<1>(it->first) == dtype; ++it) {
      sizes.emplace_back(std::get<2>(it->first), &it->second);
    }
    std::sort(sizes.begin(), sizes.end(),
              [](const auto& x, const auto& y) { return x.second->order < y.second->order; });
    for (const auto& [shape, at] : sizes) {
      auto& line = *at;
      line.values.resize(campaigns.size(), results::k_na);
      w.StartArray();
      j.str(shown(shape, cut));
      w.StartArray();
      for (const auto v : line.values) {
        j.num(v);
      }
      w.EndArray();
      w.StartArray();
      for (const auto c : line.regressions) {
        w.Uint64(c);
      }
      w.EndArray();
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

// The runs of the last n + 1 campaigns of each caliber (the one before the n is compared with the
// first of them), chosen from the runs table alone: the page costs what it shows, not the store.
std::vector<Run> last_campaigns(const results::store::Store& store, std::size_t n)
{
  auto infos = store.load_infos();
  std::set<std::string> paths;
  for (const auto& c : group_by_caliber(infos)) {
    std::vector<Run> mine;
    for (const auto i : c.runs) {
      mine.push_back(std::move(infos[i]));
    }
    const auto campaigns = results::history::campaigns_of(std::move(mine));
    const auto keep = std::min(campaigns.size(), n + 1);
    for (auto it = campaigns.end() - static_cast<std::ptrdiff_t>(keep); it != campaigns.end(); ++it) {
      for (const auto& r : it->runs) {
        paths.insert(r.info.path);
      }
    }
  }
  return store.load({paths.begin(), paths.end()});
}

} // namespace

void write_history(Json& j, const results::store::Store& store, std::size_t n, const results::compare::AbOptions& o,
                   std::size_t* cut)
{
  auto runs = last_campaigns(store, n);
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
    std::vector<Campaign*> order;
    for (auto& c : campaigns) {
      order.push_back(&c);
    }
    const auto total = order.size();
    const Campaign* before = nullptr;
    if (order.size() > n) {
      before = order[order.size() - n - 1];
      order.erase(order.begin(), order.end() - static_cast<std::ptrdiff_t>(n));
    }
    w.StartObject();
    j.key("caliber");
    write_caliber(j, infos[key]);
    j.field("campaigns_in_store", total);
    write_group(j, order, before, o, cut);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

} // namespace zl::report
