#include "results/compare/verdict.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace zl::results::compare {

namespace {

constexpr double k_chi2_1_median = 0.45493642311957283; // median of chi-square, 1 degree of freedom

// Welch-Satterthwaite degrees of freedom of a sum of variances, each with its own degrees of
// freedom; infinite ones (a one-round side's normal error) add nothing to the denominator.
double welch_df(double va, double dfa, double vb, double dfb)
{
  const double den = (std::isfinite(dfa) ? va * va / dfa : 0) + (std::isfinite(dfb) ? vb * vb / dfb : 0);
  return den > 0 ? (va + vb) * (va + vb) / den : std::numeric_limits<double>::infinity();
}

} // namespace

SideEstimate estimate_side(const std::vector<const SampleSet*>& rounds)
{
  std::vector<double> logs, vars;
  for (const auto* s : rounds) {
    if (s != nullptr && std::isfinite(s->stats.log_se) && s->stats.median > 0) {
      logs.push_back(std::log(s->stats.median));
      vars.push_back(s->stats.log_se * s->stats.log_se);
    }
  }
  SideEstimate e;
  e.rounds = static_cast<std::uint32_t>(logs.size());
  if (logs.empty()) {
    return e;
  }
  const double k = static_cast<double>(logs.size());
  e.log_median = std::accumulate(logs.begin(), logs.end(), 0.0) / k;
  const double within = std::accumulate(vars.begin(), vars.end(), 0.0) / k / k;
  if (logs.size() == 1) {
    e.variance = within;
    return e;
  }
  double between = 0;
  for (const double l : logs) {
    between += (l - e.log_median) * (l - e.log_median);
  }
  e.variance = std::max(between / (k - 1) / k, within);
  return e;
}

Interval interval(const SideEstimate& a, const SideEstimate& b, double tau2)
{
  const double va = a.variance + (a.rounds == 1 ? tau2 : 0);
  const double vb = b.variance + (b.rounds == 1 ? tau2 : 0);
  const double d = b.log_median - a.log_median, se = std::sqrt(va + vb);
  const double inf = std::numeric_limits<double>::infinity();
  const double df = welch_df(va, a.rounds > 1 ? a.rounds - 1.0 : inf, vb, b.rounds > 1 ? b.rounds - 1.0 : inf);
  double q = 0, p = 1;
  if (std::isfinite(df)) {
    const boost::math::students_t t(df);
    q = boost::math::quantile(t, 0.975);
    p = se > 0 ? 2 * boost::math::cdf(boost::math::complement(t, std::fabs(d) / se)) : (d == 0 ? 1 : 0);
  } else {
    const boost::math::normal z;
    q = boost::math::quantile(z, 0.975);
    p = se > 0 ? 2 * boost::math::cdf(boost::math::complement(z, std::fabs(d) / se)) : (d == 0 ? 1 : 0);
  }
  return {std::expm1(d), std::expm1(d - q * se), std::expm1(d + q * se), p};
}

namespace {

// The tau^2 at which the median of x2 / (w + tau^2) is chi-square's (1 degree of freedom).
double solve_tau2(const std::vector<double>& x2, const std::vector<double>& w)
{
  auto median_ratio = [&](double tau2) {
    std::vector<double> r(x2.size());
    for (std::size_t i = 0; i < x2.size(); ++i) {
      r[i] = x2[i] / std::max(w[i] + tau2, 1e-300);
    }
    return median_of(std::move(r));
  };
  if (x2.empty() || median_ratio(0) <= k_chi2_1_median) {
    return 0;
  }
  double lo = 0, hi = *std::max_element(x2.begin(), x2.end()) / k_chi2_1_median;
  for (int i = 0; i < 100; ++i) { // the ratios fall as tau^2 grows
    const double mid = (lo + hi) / 2;
    (median_ratio(mid) > k_chi2_1_median ? lo : hi) = mid;
  }
  return hi;
}

} // namespace

ProcessNoise estimate_process_noise(const std::vector<SideEstimate>& a, const std::vector<SideEstimate>& b,
                                    const std::vector<std::size_t>& group)
{
  std::map<std::size_t, std::vector<std::pair<double, double>>> ops; // op -> (D, v) of its pairings
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && i < group.size(); ++i) {
    if (a[i].rounds == 1 && b[i].rounds == 1) {
      ops[group[i]].emplace_back(b[i].log_median - a[i].log_median, a[i].variance + b[i].variance), ++n;
    }
  }
  ProcessNoise out;
  out.known = n >= k_min_for_tau;
  if (!out.known) {
    return out;
  }
  // Rows: D less its op's median, in ops of 3 or more (k/(k-1): the centring takes a share);
  // with too few such rows, D itself.
  std::vector<double> r2, rv, d2, dv, m2, mw;
  for (const auto& [op, rows] : ops) {
    std::vector<double> ds;
    for (const auto& [d, v] : rows) {
      ds.push_back(d), d2.push_back(d * d), dv.push_back(v);
    }
    const double m = median_of(ds);
    const auto k = static_cast<double>(rows.size());
    for (const auto& [d, v] : rows) {
      if (rows.size() >= 3) {
        r2.push_back((d - m) * (d - m) * k / (k - 1)), rv.push_back(v);
      }
    }
    m2.push_back(m * m);
  }
  out.row2 = r2.size() >= k_min_for_tau / 2 && ops.size() >= k_min_ops ? solve_tau2(r2, rv) : solve_tau2(d2, dv);
  if (ops.size() < k_min_ops) {
    return out;
  }
  // Ops: the median D of an op of k rows varies by about pi/2 (v + row2) / k on its own.
  for (const auto& [op, rows] : ops) {
    std::vector<double> w;
    for (const auto& [d, v] : rows) {
      w.push_back(v + out.row2);
    }
    mw.push_back(1.5707963267948966 * median_of(w) / static_cast<double>(rows.size()));
  }
  out.op2 = solve_tau2(m2, mw);
  return out;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p)
{
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> q(p.size(), 1);
  double running = 1;
  const auto m = static_cast<double>(p.size());
  for (std::size_t r = p.size(); r-- > 0;) {
    running = std::min(running, p[order[r]] * m / static_cast<double>(r + 1));
    q[order[r]] = std::min(running, 1.0);
  }
  return q;
}

} // namespace zl::results::compare
