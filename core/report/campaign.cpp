// The campaign view's data: zl summary's groups per caliber, latency against size, what failed.
#include "report/data.hpp"

#include "results/compare/summary.hpp"
#include "results/parse/marker_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

namespace zl::report {

namespace {

using results::Row;
using results::Run;
using results::SampleSet;
using results::SampleStop;
namespace names = results::parse::marker_names;

// The product of the integers of list (the text between its brackets); NaN unless list is
// integers only: "64, 64" and "64," are sizes, "'a', 1", "0.5" and "" are not.
double integer_product(std::string_view list)
{
  double product = 1;
  bool any = false;
  while (!list.empty()) {
    const auto comma = std::min(list.find(','), list.size());
    auto item = list.substr(0, comma);
    list.remove_prefix(std::min(comma + 1, list.size()));
    const auto first = item.find_first_not_of(" \t\n");
    if (first == std::string_view::npos) {
      continue; // "(64,)": Python's one-tuple
    }
    item = item.substr(first, item.find_last_not_of(" \t\n") + 1 - first);
    if (item.size() > 18 || item.find_first_not_of("0123456789") != std::string_view::npos) {
      return results::k_na; // no tensor has 10^18 elements a dimension: not a size (nor stod's overflow)
    }
    product *= std::stod(std::string(item));
    any = true;
  }
  return any ? product : results::k_na;
}

// A row's samples of one side, where it kept any.
const SampleSet* kept(const Run& run, const Row& r, bool gems)
{
  const auto* s = run.samples_of(r, gems);
  return s != nullptr && s->stats.n > 0 ? s : nullptr;
}

// One op and dtype's latency against size: per Size Detail the median over the rounds, and the
// samples of the round that kept the most (rounds are not pooled: each is another process).
struct Series
{
  std::vector<std::string_view> shapes;
  std::vector<std::vector<double>> torch, gems;
  std::vector<const SampleSet*> torch_box, gems_box;
  std::unordered_map<std::string_view, std::size_t> index;
};

using SeriesKey = std::pair<std::string_view, std::string_view>; // op, dtype

std::map<SeriesKey, Series> collect_series(const std::vector<const Run*>& runs)
{
  auto most = [](const SampleSet*& box, const SampleSet* s) {
    if (s != nullptr && (box == nullptr || s->stats.n > box->stats.n)) {
      box = s;
    }
  };
  std::map<SeriesKey, Series> all;
  for (const auto* run : runs) {
    for (const auto& r : run->rows) {
      if (!r.measured()) {
        continue;
      }
      auto& s = all[{r.op(), r.dtype()}];
      auto [it, fresh] = s.index.emplace(r.shape, s.shapes.size());
      if (fresh) {
        s.shapes.push_back(r.shape), s.torch.emplace_back(), s.gems.emplace_back();
        s.torch_box.push_back(nullptr), s.gems_box.push_back(nullptr);
      }
      const auto k = it->second;
      if (results::has_value(r.torch_ms) && r.torch_ms > 0) {
        s.torch[k].push_back(r.torch_ms);
      }
      s.gems[k].push_back(r.gems_ms);
      most(s.torch_box[k], kept(*run, r, false));
      most(s.gems_box[k], kept(*run, r, true));
    }
  }
  return all;
}

// [min, q1, median, q3, max, n, noise, warnings] of a side's samples, or null.
void write_box(Json& j, const SampleSet* s)
{
  auto& w = j.w();
  if (s == nullptr) {
    w.Null();
    return;
  }
  const auto& st = s->stats;
  w.StartArray();
  for (const double v : {st.min, st.q1, st.median, st.q3, st.max}) {
    j.num(v);
  }
  w.Uint(st.n);
  j.num(st.noise());
  j.str(results::warnings_text(st.warnings));
  w.EndArray();
}

void write_series(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  auto& w = j.w();
  j.key("series");
  w.StartArray();
  for (const auto& entry : collect_series(runs)) {
    // [op, dtype, [shapes], [torch], [gems], [element counts], [torch boxes], [gems boxes]], by
    // element count; arrays, not objects: 700 ops × 3 dtypes, keys would weigh
    const Series& s = entry.second; // not a structured binding: C++17 lambdas cannot capture one
    const auto order = by_element_count(s.shapes);
    w.StartArray();
    j.str(shown(entry.first.first, cut)), j.str(shown(entry.first.second, cut));
    auto each = [&](auto&& write) {
      w.StartArray();
      for (const auto k : order) {
        write(k);
      }
      w.EndArray();
    };
    each([&](std::size_t k) { j.str(shown(s.shapes[k], cut)); });
    each([&](std::size_t k) { j.num(results::median_of(s.torch[k])); });
    each([&](std::size_t k) { j.num(results::median_of(s.gems[k])); });
    each([&](std::size_t k) { j.num(element_count(s.shapes[k])); });
    each([&](std::size_t k) { write_box(j, s.torch_box[k]); });
    each([&](std::size_t k) { write_box(j, s.gems_box[k]); });
    w.EndArray();
  }
  w.EndArray();
}

// How far the measurements can be trusted: each row side whose samples warn (noisy, outliers,
// too short, too few), and how many rows stopped sampling at a cap before converging.
void write_sampling(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  auto& w = j.w();
  std::size_t sampled = 0, capped = 0, max_samples = 0, max_time = 0;
  j.key("unstable");
  w.StartArray();
  for (const auto* run : runs) {
    const auto& file = run->info.log_file.empty() ? run->info.path : run->info.log_file;
    for (const auto& r : run->rows) {
      bool any = false, at_n = false, at_time = false;
      for (const bool gems : {true, false}) {
        const auto* s = kept(*run, r, gems);
        if (s == nullptr) {
          continue;
        }
        any = true;
        at_n = at_n || s->stop == SampleStop::max_samples;
        at_time = at_time || s->stop == SampleStop::max_time;
        if (s->stats.warnings != 0) {
          w.StartArray(); // [op, dtype, shape, side, warnings, noise, n, stop, where]
          j.str(shown(r.op(), cut)), j.str(shown(r.dtype(), cut)), j.str(shown(r.shape, cut));
          j.str(gems ? "FlagGems" : "torch"), j.str(results::warnings_text(s->stats.warnings));
          j.num(s->stats.noise()), w.Uint(s->stats.n), j.str(results::to_string(s->stop));
          j.str(shown(fmt::format("{}:{}", file, r.line), cut));
          w.EndArray();
        }
      }
      sampled += any ? 1 : 0;
      capped += at_n || at_time ? 1 : 0;
      max_samples += at_n ? 1 : 0;
      max_time += at_time ? 1 : 0;
    }
  }
  w.EndArray();
  j.key("sampling"); // rows counted once, whichever side stopped at a cap
  w.StartObject();
  j.field("rows", sampled), j.field("capped", capped);
  j.field("max_samples", max_samples), j.field("max_time", max_time);
  w.EndObject();
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
    j.str(shown(detail, cut, k_message_max)), j.str(shown(where, cut));
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

double element_count(std::string_view size_detail)
{
  // The innermost lists, in order: the span from the last opening bracket to the next closing one.
  std::size_t open = std::string_view::npos;
  for (std::size_t i = 0; i < size_detail.size(); ++i) {
    const char c = size_detail[i];
    if (c == '[' || c == '(') {
      open = i;
    } else if ((c == ']' || c == ')') && open != std::string_view::npos) {
      const double n = integer_product(size_detail.substr(open + 1, i - open - 1));
      if (results::has_value(n)) {
        return n;
      }
      open = std::string_view::npos;
    }
  }
  return results::k_na;
}

std::vector<std::size_t> by_element_count(const std::vector<std::string_view>& shapes)
{
  std::vector<std::pair<double, std::size_t>> keyed;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    keyed.emplace_back(element_count(shapes[i]), i);
  }
  // Stable: equal counts, and shapes without one (NaN: after every count), keep the printed order.
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) {
    return results::has_value(x.first) && (!results::has_value(y.first) || x.first < y.first);
  });
  std::vector<std::size_t> order;
  for (const auto& [count, i] : keyed) {
    order.push_back(i);
  }
  return order;
}

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
      // [op, dtype, rows, measured, geomean, min, max, failed, fallback, status, %BW, %TFLOPS]
      w.StartArray();
      j.str(shown(g.op, cut)), j.str(shown(g.dtype, cut));
      w.Int64(g.rows), w.Int64(g.measured);
      j.num(g.geomean_speedup), j.num(g.min_speedup), j.num(g.max_speedup);
      w.Int64(g.failed), w.Int64(g.fallback);
      j.str(g.status);
      j.num(g.pct_bandwidth), j.num(g.pct_tflops); // of the device's spec peak (devices/peaks.hpp)
      w.EndArray();
    }
    w.EndArray();
    j.key("total");
    w.StartArray();
    w.Int64(summary.total.rows), w.Int64(summary.total.measured), j.num(summary.total.geomean_speedup);
    w.Int64(summary.total.failed), w.Int64(summary.total.fallback);
    w.EndArray();
    write_series(j, members, cut);
    write_sampling(j, members, cut);
    write_issues(j, members, cut);
    write_telemetry(j, members, cut);
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
