// The A/B view's data: results::compare::compare's result, per op and per pairing.
#include "report/data.hpp"

#include <unordered_map>

namespace zl::report {

using results::compare::OpComparison;
using results::compare::Verdict;

Verdict op_verdict(const OpComparison& op)
{
  auto count = [&](Verdict v) { return op.verdicts[static_cast<std::size_t>(v)]; };
  for (const auto v : {Verdict::slower, Verdict::faster, Verdict::ambiguous, Verdict::same}) {
    if (count(v) > 0) {
      return v;
    }
  }
  return Verdict::none;
}

void write_ab(Json& j, const results::compare::AbResult& r, const AbSides& sides, std::size_t* cut)
{
  auto& w = j.w();
  w.StartObject();
  j.field("a", shown(sides.a_path, cut));
  j.field("b", shown(sides.b_path, cut));
  for (const auto& [key, runs] :
       {std::pair<const char*, const std::vector<results::Run>*>{"a_calibers", sides.a}, {"b_calibers", sides.b}}) {
    j.key(key);
    w.StartArray();
    for (const auto& c : group_by_caliber(*runs)) {
      write_caliber(j, c);
    }
    w.EndArray();
  }
  j.field("forced", sides.forced);
  j.key("caliber_differences");
  w.StartArray();
  for (const auto& d : r.caliber_diffs) {
    w.StartArray();
    j.str(d.field), j.str(shown(d.a, cut)), j.str(shown(d.b, cut));
    w.EndArray();
  }
  w.EndArray();
  j.field("tested", r.tested);
  j.field("alpha", sides.options.alpha);
  j.field("threshold", sides.options.threshold);
  j.field("min_p", r.min_p);
  j.field("rounds_a", r.rounds_a);
  j.field("rounds_b", r.rounds_b);
  j.field("unpaired", r.unpaired.size());
  j.field("failed", r.failed.size());
  j.key("ops");
  w.StartArray();
  std::unordered_map<std::string_view, std::size_t> index;
  for (const auto& op : r.ops) {
    index.emplace(op.op, index.size());
    w.StartArray(); // [op, pairs, geomean, min, max, fallback_pairs, verdict, faster, slower, same, ambiguous]
    j.str(shown(op.op, cut));
    w.Uint64(op.pairs);
    j.num(op.geomean), j.num(op.min), j.num(op.max);
    w.Uint64(op.fallback_pairs);
    j.str(to_string(op_verdict(op)));
    for (const auto v : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous}) {
      w.Uint64(op.verdicts[static_cast<std::size_t>(v)]);
    }
    w.EndArray();
  }
  w.EndArray();
  j.key("pairings");
  w.StartArray();
  for (const auto& p : r.pairings) {
    // [op index, dtype, shape, a_ms, b_ms, ratio, verdict, p, diff, diff_lo, diff_hi, q]: diff and
    // its interval from the samples (null where a side kept none), p theirs, else the rounds' U test
    w.StartArray();
    const auto it = index.find(p.op());
    w.Uint64(it == index.end() ? 0 : it->second);
    j.str(shown(p.dtype(), cut)), j.str(shown(p.shape(), cut));
    j.num(p.a_ms), j.num(p.b_ms), j.num(p.ratio);
    j.str(to_string(p.verdict));
    j.num(results::has_value(p.p) ? p.p : p.verdict == Verdict::none ? results::k_na : p.test.p);
    j.num(p.diff), j.num(p.diff_lo), j.num(p.diff_hi), j.num(p.q);
    w.EndArray();
  }
  w.EndArray();
  w.EndObject();
}

} // namespace zl::report
