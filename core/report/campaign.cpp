// The campaign view's data: zl summary's groups per caliber, latency against size, what failed.
#include "report/data.hpp"

#include "results/compare/summary.hpp"
#include "results/parse/marker_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace zl::report {

namespace {

using results::Row;
using results::Run;
namespace names = results::parse::marker_names;

double median(std::vector<double> v)
{
  if (v.empty()) {
    return results::k_na;
  }
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// One op and dtype's latency against size: the median over the rounds of each Size Detail, in
// the order the runs printed them.
struct Series
{
  std::vector<std::string_view> shapes;
  std::vector<std::vector<double>> torch, gems;
  std::unordered_map<std::string_view, std::size_t> index;
};

void write_series(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  std::map<std::pair<std::string_view, std::string_view>, Series> all;
  for (const auto* run : runs) {
    for (const auto& r : run->rows) {
      if (!r.measured()) {
        continue;
      }
      auto& s = all[{r.op(), r.dtype()}];
      auto [it, fresh] = s.index.emplace(r.shape, s.shapes.size());
      if (fresh) {
        s.shapes.push_back(r.shape), s.torch.emplace_back(), s.gems.emplace_back();
      }
      if (results::has_value(r.torch_ms) && r.torch_ms > 0) {
        s.torch[it->second].push_back(r.torch_ms);
      }
      s.gems[it->second].push_back(r.gems_ms);
    }
  }
  auto& w = j.w();
  j.key("series");
  w.StartArray();
  for (const auto& [key, s] : all) {
    w.StartArray(); // [op, dtype, [shapes], [torch], [gems]]: 700 ops × 3 dtypes, keys would weigh
    j.str(shown(key.first, cut)), j.str(shown(key.second, cut));
    w.StartArray();
    for (const auto shape : s.shapes) {
      j.str(shown(shape, cut));
    }
    w.EndArray();
    for (const auto* values : {&s.torch, &s.gems}) {
      w.StartArray();
      for (const auto& v : *values) {
        j.num(median(v));
      }
      w.EndArray();
    }
    w.EndArray();
  }
  w.EndArray();
}

// What a reader must see next to the numbers: failed rows, rows timed directly, the markers
// (poisoned captures, replay fallbacks, …) with the row they concern.
void write_issues(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  auto& w = j.w();
  auto issue = [&](std::string_view kind, std::string_view op, const Row* row, std::string_view detail,
                   const std::string& where) {
    w.StartArray(); // [kind, op, dtype, shape, detail, where]
    j.str(kind), j.str(shown(op, cut));
    j.str(row ? shown(row->dtype(), cut) : ""), j.str(row ? shown(row->shape, cut) : "");
    j.str(shown(detail, cut)), j.str(shown(where, cut));
    w.EndArray();
  };
  j.key("issues");
  w.StartArray();
  for (const auto* run : runs) {
    const auto& file = run->info.log_file.empty() ? run->info.path : run->info.log_file;
    for (const auto& r : run->rows) {
      if (!r.success) {
        issue("failed", r.op(), &r, r.error(), fmt::format("{}:{}", file, r.line));
      } else if (r.fallback) {
        issue(names::k_benchmark_direct_no_cudagraph, r.op(), &r, "timed directly: graph capture refused",
              fmt::format("{}:{}", file, r.line));
      }
    }
    for (const auto& f : run->foreign) {
      issue("foreign record", run->info.op, nullptr, f.reason, fmt::format("{}:{}", f.file, f.line));
    }
    for (const auto& m : run->markers) {
      if (m.name == names::k_zl_run || m.name == names::k_zl_timer ||
          m.name == names::k_benchmark_direct_no_cudagraph) {
        continue;
      }
      std::string detail;
      for (const auto& [k, v] : m.fields) {
        detail += (detail.empty() ? "" : " ") + k + "=" + v;
      }
      const Row* row = m.row >= 0 && static_cast<std::size_t>(m.row) < run->rows.size()
                           ? &run->rows[static_cast<std::size_t>(m.row)]
                           : nullptr;
      // A marker printed away from its row (a poisoned capture before the test's failure line)
      // names the row's line too, so that the two are read together.
      issue(m.name, m.op, row, detail,
            row != nullptr && row->line != m.line ? fmt::format("{}:{} (its row: line {})", file, m.line, row->line)
                                                  : fmt::format("{}:{}", file, m.line));
    }
  }
  w.EndArray();
}

} // namespace

void write_campaign(Json& j, const std::vector<Run>& runs, const std::vector<results::OpOutcome>& ops, std::size_t* cut)
{
  auto& w = j.w();
  w.StartObject();
  j.field("runs", runs.size());
  j.key("calibers");
  w.StartArray();
  std::set<std::string> run_ops;
  for (const auto& r : runs) {
    run_ops.insert(r.info.op);
  }
  bool first = true;
  for (const auto& c : group_by_caliber(runs)) {
    std::vector<const Run*> members;
    std::set<std::string> group_ops;
    for (const auto i : c.runs) {
      members.push_back(&runs[i]);
      group_ops.insert(runs[i].info.op);
    }
    // An op's campaign status counts with its runs' caliber; an op with no run at all (crashed
    // before writing one) with the first.
    std::vector<results::OpOutcome> group_outcomes;
    for (const auto& o : ops) {
      if (group_ops.count(o.op) || (first && !run_ops.count(o.op))) {
        group_outcomes.push_back(o);
      }
    }
    first = false;
    w.StartObject();
    j.key("caliber");
    write_caliber(j, c);
    const auto summary = results::compare::summarize(members, group_outcomes);
    j.key("groups");
    w.StartArray();
    for (const auto& g : summary.groups) {
      w.StartArray(); // [op, dtype, rows, measured, geomean, min, max, failed, fallback, status]
      j.str(shown(g.op, cut)), j.str(shown(g.dtype, cut));
      w.Int64(g.rows), w.Int64(g.measured);
      j.num(g.geomean_speedup), j.num(g.min_speedup), j.num(g.max_speedup);
      w.Int64(g.failed), w.Int64(g.fallback);
      j.str(g.status);
      w.EndArray();
    }
    w.EndArray();
    j.key("total");
    w.StartArray();
    w.Int64(summary.total.rows), w.Int64(summary.total.measured), j.num(summary.total.geomean_speedup);
    w.Int64(summary.total.failed), w.Int64(summary.total.fallback);
    w.EndArray();
    write_series(j, members, cut);
    write_issues(j, members, cut);
    w.EndObject();
  }
  w.EndArray();
  j.key("ops_status"); // ops their campaign did not call ok: crashed, timeout, …
  w.StartArray();
  for (const auto& o : ops) {
    if (o.status != results::OpState::ok) {
      w.StartArray(); // [op, status, campaign, settled]: the page tells declined from failed by the core's table
      j.str(shown(o.op, cut)), j.str(results::name(o.status)), j.str(shown(o.campaign, cut));
      w.Bool(results::settled(o.status));
      w.EndArray();
    }
  }
  w.EndArray();
  w.EndObject();
}

} // namespace zl::report
