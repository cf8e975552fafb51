// What compare makes of its pairings once they are paired: the verdicts from the samples
// (docs/statistics.md: each pairing's interval, the between-process noise, Benjamini-Hochberg over
// the campaign, torch's latency as a control), then the tally per op.
#include "results/compare/ab.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace zl::results::compare {

namespace {

// torch's own latency in the same row is a control: it is timed just before FlagGems' in the same
// process, and the two builds under comparison leave it alone. Where it moved clearly beyond the
// threshold (its interval, from its own samples alone, lies outside +-threshold), the process or
// machine was not in the same state for that row on the two sides: how far it moved (ln units)
// is added to FlagGems' uncertainty, so that only a difference well beyond it is called. 0: none.
double control_shift(const Pairing& p, const AbOptions& o)
{
  if (!p.est_a.valid() || !p.est_b.valid() || !p.torch_a.valid() || !p.torch_b.valid()) {
    return 0;
  }
  const auto ci = interval(p.torch_a, p.torch_b, 0);
  return ci.lo > o.threshold || ci.hi < -o.threshold ? std::log1p(ci.diff) : 0;
}

void finish(OpComparison& c)
{
  if (c.pairs > 0) {
    c.geomean = std::exp(c.log_sum / static_cast<double>(c.pairs));
  }
  if (c.torch_pairs > 0) {
    c.torch_geomean = std::exp(c.torch_log_sum / static_cast<double>(c.torch_pairs));
  }
}

void add(OpComparison& c, const Pairing& p)
{
  ++c.pairs;
  c.log_sum += std::log(p.ratio);
  c.min = has_value(c.min) ? std::min(c.min, p.ratio) : p.ratio;
  c.max = has_value(c.max) ? std::max(c.max, p.ratio) : p.ratio;
  if (has_value(p.torch_ratio)) {
    ++c.torch_pairs;
    c.torch_log_sum += std::log(p.torch_ratio);
  }
  c.fallback_pairs += p.fallback ? 1 : 0;
  ++c.verdicts[static_cast<std::size_t>(p.verdict)];
}

} // namespace

void judge_sampled(AbResult& out, const AbOptions& o)
{
  std::vector<std::size_t> sampled, group;
  std::vector<SideEstimate> ea, eb;
  for (std::size_t k = 0; k < out.pairings.size(); ++k) {
    auto& p = out.pairings[k];
    p.control_shift = control_shift(p, o);
    p.control_moved = p.control_shift != 0;
    out.throttled += p.throttled ? 1 : 0;
    if (p.throttled && !o.keep_throttled) {
      continue; // no verdict, and no part in the noise it would be judged against
    }
    if (p.est_a.valid() && p.est_b.valid()) { // a moved control's row is process noise too
      // pairings come op by op: a new op, a new group
      const bool same_op = !group.empty() && p.op() == out.pairings[sampled.back()].op();
      group.push_back(group.empty() ? 0 : same_op ? group.back() : group.back() + 1);
      sampled.push_back(k), ea.push_back(p.est_a), eb.push_back(p.est_b);
    }
  }
  out.process_noise_given = o.process_noise.has_value();
  const auto noise = estimate_process_noise(ea, eb, group);
  const double tau2 = o.process_noise ? std::pow(std::log1p(*o.process_noise), 2) : noise.side2();
  out.process_noise = std::expm1(std::sqrt(tau2));
  out.process_noise_ops = o.process_noise ? 0 : std::expm1(std::sqrt(noise.op2 / 2));
  out.sampled = sampled.size();
  out.process_noise_known = o.process_noise.has_value() || noise.known;
  std::vector<double> ps;
  for (const auto k : sampled) {
    auto& p = out.pairings[k];
    auto ea_row = p.est_a;
    ea_row.variance += p.control_shift * p.control_shift;
    const auto ci = interval(ea_row, p.est_b, tau2);
    p.diff = ci.diff, p.diff_lo = ci.lo, p.diff_hi = ci.hi, p.p = ci.p;
    ps.push_back(ci.p);
  }
  const auto qs = benjamini_hochberg(ps);
  for (std::size_t i = 0; i < sampled.size(); ++i) {
    auto& p = out.pairings[sampled[i]];
    p.q = qs[i];
    out.control_moved += p.control_moved ? 1 : 0;
    // With one round a side and no noise told, nothing says how far two processes differ.
    const bool told = out.process_noise_known || (p.est_a.rounds > 1 && p.est_b.rounds > 1);
    p.verdict = Verdict::ambiguous;
    if (told && p.diff_lo >= -o.threshold && p.diff_hi <= o.threshold) {
      p.verdict = Verdict::same;
    } else if (told && p.q < o.alpha && (p.diff_lo > 0 || p.diff_hi < 0)) {
      p.verdict = p.diff_lo > 0 ? Verdict::slower : Verdict::faster;
    }
  }
}

void tally(AbResult& out, const AbOptions& options)
{
  // Per op, in name order.
  std::map<std::string_view, OpComparison> ops;
  std::size_t fewest_a = SIZE_MAX, fewest_b = SIZE_MAX;
  OpComparison* current = nullptr; // pairings come op by op: look the op up when it changes
  for (std::size_t k = 0; k < out.pairings.size(); ++k) {
    const auto& p = out.pairings[k];
    if (current == nullptr || p.op() != out.pairings[k - 1].op()) {
      current = &ops[p.op()];
    }
    add(*current, p);
    add(out.total, p);
    if (p.verdict != Verdict::none && !has_value(p.diff)) { // judged by the U test over rounds
      fewest_a = std::min<std::size_t>(fewest_a, p.a_samples);
      fewest_b = std::min<std::size_t>(fewest_b, p.b_samples);
    }
    const bool regressed = options.fail_on_regression && p.ratio > 1 + *options.fail_on_regression &&
                           (p.verdict == Verdict::slower || p.verdict == Verdict::none) &&
                           (!p.throttled || options.keep_throttled);
    if (regressed) {
      out.regressions.push_back(k);
    }
  }
  out.tested = fewest_a != SIZE_MAX || out.sampled > 0;
  out.min_p = fewest_a != SIZE_MAX ? min_p_value(fewest_a, fewest_b) : 1.0;
  for (const auto& u : out.unpaired) {
    ++ops[u.op].unpaired;
    ++out.total.unpaired;
  }
  for (const auto& f : out.failed) {
    ++ops[f.op].failed;
    ++out.total.failed;
  }
  for (auto& [op, c] : ops) {
    c.op = std::string(op);
    finish(c);
    out.ops.push_back(std::move(c));
  }
  out.total.op = "total";
  finish(out.total);
}

} // namespace zl::results::compare
