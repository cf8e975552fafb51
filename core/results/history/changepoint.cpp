#include "results/history/changepoint.hpp"

#include "results/samples.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace zl::results::history {

namespace {

using Range = std::pair<std::size_t, std::size_t>; // [first, end)

void validate(const std::vector<Point>& series, const ChangepointOptions& o)
{
  if (o.min_segment == 0 || !(o.alpha > 0 && o.alpha < 1) || !(o.screening_alpha > 0 && o.screening_alpha < 1) ||
      !(o.filter_threshold > 0) || !(o.min_noise >= 0) || o.drift_min_points < 3 ||
      !(o.drift_alpha > 0 && o.drift_alpha < 1)) {
    throw std::invalid_argument("change points: options out of range (min_segment >= 1, 0 < alpha, screening_alpha, "
                                "drift_alpha < 1, filter_threshold > 0, min_noise >= 0, drift_min_points >= 3)");
  }
  auto reject = [](std::size_t i, const std::string& what) {
    throw std::invalid_argument("change points: point " + std::to_string(i) + " " + what);
  };
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Point& p = series[i];
    if (!std::isfinite(p.value) || p.value <= 0) {
      reject(i, "has latency " + std::to_string(p.value) + "; latencies must be finite and > 0");
    }
    const double lo = p.ci_lo.value_or(-1), hi = p.ci_hi.value_or(-1);
    if ((p.ci_lo || p.ci_hi) && !(std::isfinite(lo) && std::isfinite(hi) && lo > 0 && lo <= hi)) {
      reject(i, "has interval [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "] (-1: missing); an interval needs both ends, finite, 0 < lo <= hi");
    }
    if (i > 0 && p.campaign <= series[i - 1].campaign) {
      reject(i, "has campaign " + std::to_string(p.campaign) + " after campaign " +
                    std::to_string(series[i - 1].campaign) + "; campaigns must increase");
    }
  }
}

std::vector<double> differences(const std::vector<double>& y)
{
  std::vector<double> d(y.size() > 1 ? y.size() - 1 : 0);
  for (std::size_t i = 1; i < y.size(); ++i) {
    d[i - 1] = y[i] - y[i - 1];
  }
  const double centre = d.empty() ? 0 : median_of(d);
  for (double& x : d) {
    x -= centre;
  }
  return d;
}

// A first guess of sigma that spikes cannot move: 1.4826 MAD(first differences) / sqrt(2).
double mad_noise(const std::vector<double>& logs)
{
  std::vector<double> d = differences(logs);
  std::transform(d.begin(), d.end(), d.begin(), [](double x) { return std::abs(x); });
  return d.size() < 2 ? 0 : 1.4826 * median_in_place(d) / std::sqrt(2.0);
}

// The sd of first differences within 3 guessed sigmas (spikes and steps left out), corrected for
// that truncation (a normal keeps 97.33% of its variance within 3 sd): the MAD needs ~2.7x the
// points for its precision. Two steps from a MAD off by chance land near this one's fixed point.
double clipped_noise(const std::vector<double>& logs, double guess)
{
  double sum = 0, count = 0;
  for (double x : differences(logs)) {
    if (std::abs(x) <= 3 * std::sqrt(2.0) * guess) {
      sum += x * x;
      count += 1;
    }
  }
  return count > 1 && guess > 0 ? std::sqrt(sum / (count - 1) / (2 * 0.9733)) : guess;
}

// The floor of sigma: min_noise, and the typical 95% half-width of the points' own medians / 1.96
// (between campaigns a median moves at least by its sampling error).
double noise_floor(const std::vector<Point>& series, double min_noise)
{
  std::vector<double> half_widths;
  for (const Point& p : series) {
    if (p.ci_lo) {
      half_widths.push_back((std::log(*p.ci_hi) - std::log(*p.ci_lo)) / (2 * 1.96));
    }
  }
  return half_widths.empty() ? min_noise : std::max(min_noise, median_in_place(half_widths));
}

// The price of one more change: sigma^2 times the squared two-sided t quantile at alpha / n
// (Bonferroni over the n places a change can start). Student's t from the normal quantile by the
// Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5): sigma is estimated, and from 30 points
// its error widens the tail that much.
double penalty(double alpha, std::size_t n, double dof, double sigma)
{
  const double z = std::abs(normal_quantile(alpha / (2 * static_cast<double>(n)))), v = std::max(3.0, dof);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2;
  const double t = z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
                   (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
  return t * t * sigma * sigma;
}

// The Hampel window of point i: 2k+1 points, pushed inward at the start (no level can begin there),
// shrunk evenly at the end (the newest points may begin one, which a window leaning back would
// erase; the last point is never replaced: a spike in the newest campaign is a tentative change).
Range window_of(std::size_t i, std::size_t n, std::size_t k)
{
  if (i < k) {
    return {0, 2 * k + 1};
  }
  const std::size_t r = std::min(k, n - 1 - i);
  return {i - r, i + r + 1};
}

// The Hampel filter, in place, repeated until nothing moves (at most 4 passes: spikes close
// together can hold a median up until their neighbours are replaced; k+1 in a row are a level).
std::vector<double> hampel(const std::vector<double>& logs, double sigma, const ChangepointOptions& o,
                           std::vector<std::size_t>& outliers)
{
  std::vector<double> out = logs, window;
  const std::size_t n = logs.size(), k = o.filter_half_width;
  bool moved = k > 0 && n >= 2 * k + 1;
  for (int pass = 0; pass < 4 && moved; ++pass) {
    moved = false;
    for (std::size_t i = 0; i < n; ++i) {
      const auto [lo, hi] = window_of(i, n, k);
      window.assign(out.begin() + static_cast<std::ptrdiff_t>(lo), out.begin() + static_cast<std::ptrdiff_t>(hi));
      const double m = median_in_place(window);
      if (std::abs(out[i] - m) > o.filter_threshold * sigma) {
        out[i] = m;
        outliers.push_back(i);
        moved = true;
      }
    }
  }
  std::sort(outliers.begin(), outliers.end());
  outliers.erase(std::unique(outliers.begin(), outliers.end()), outliers.end());
  return out;
}

// Prefix sums of the centred filtered values: any segment's mean and squared deviations in O(1).
struct Sums
{
  std::vector<double> s1, s2;

  explicit Sums(const std::vector<double>& y) : s1(y.size() + 1, 0), s2(y.size() + 1, 0)
  {
    const double centre = y.empty() ? 0 : y[y.size() / 2];
    for (std::size_t i = 0; i < y.size(); ++i) {
      s1[i + 1] = s1[i] + (y[i] - centre);
      s2[i + 1] = s2[i] + (y[i] - centre) * (y[i] - centre);
    }
  }
  double mean(std::size_t a, std::size_t b) const { return (s1[b] - s1[a]) / static_cast<double>(b - a); }
  double cost(std::size_t a, std::size_t b) const
  {
    const double s = s1[b] - s1[a];
    return std::max(0.0, s2[b] - s2[a] - s * s / static_cast<double>(b - a));
  }
};

// Optimal partitioning: best[t] is the least penalized cost of y[0, t) cut into segments of at
// least m points; at t = n the last segment may be shorter (the tail not yet confirmed). The inner
// loop, run n^2/2 times, is the segment cost from prefix sums written out.
// Returns the first index of every segment after the first.
std::vector<std::size_t> segment(const Sums& sums, std::size_t n, double beta, std::size_t m)
{
  std::vector<double> best(n + 1, std::numeric_limits<double>::infinity()), inverse(n + 1, 0);
  std::vector<std::size_t> last(n + 1, 0);
  for (std::size_t len = 1; len <= n; ++len) {
    inverse[len] = 1.0 / static_cast<double>(len);
  }
  best[0] = -beta;
  for (std::size_t t = 1; t <= n; ++t) {
    const std::size_t shortest = t == n ? 1 : m;
    const double s1 = sums.s1[t];
    double b = best[0] - s1 * s1 * inverse[t]; // s1[0] = s2[0] = 0
    std::size_t arg = 0;
    for (std::size_t s = m; s + shortest <= t; ++s) {
      const double d = s1 - sums.s1[s];
      const double v = best[s] - sums.s2[s] - d * d * inverse[t - s];
      if (v < b) {
        b = v;
        arg = s;
      }
    }
    if (t >= shortest) {
      best[t] = b + sums.s2[t] + beta;
      last[t] = arg;
    }
  }
  std::vector<std::size_t> starts;
  for (std::size_t t = n; t > 0 && last[t] > 0; t = last[t]) {
    starts.push_back(last[t]);
  }
  std::reverse(starts.begin(), starts.end());
  return starts;
}

Range segment_at(const std::vector<std::size_t>& starts, std::size_t j, std::size_t n)
{
  return {j == 0 ? 0 : starts[j - 1], j < starts.size() ? starts[j] : n};
}

// sigma pooled within the segments, over the points the filter kept (with one change, the
// two-sample t-test's estimate); and its degrees of freedom.
std::pair<double, double> pooled_noise(const std::vector<double>& logs, const std::vector<char>& kept,
                                       const std::vector<std::size_t>& starts)
{
  double sse = 0, dof = 0;
  for (std::size_t j = 0; j <= starts.size(); ++j) {
    const auto [a, b] = segment_at(starts, j, logs.size());
    double sum = 0, squares = 0, count = 0;
    for (std::size_t i = a; i < b; ++i) { // about the segment's first value: no cancellation
      sum += kept[i] ? logs[i] - logs[a] : 0;
      squares += kept[i] ? (logs[i] - logs[a]) * (logs[i] - logs[a]) : 0;
      count += kept[i] ? 1 : 0;
    }
    sse += count > 0 ? std::max(0.0, squares - sum * sum / count) : 0;
    dof += count > 0 ? count - 1 : 0;
  }
  return {dof > 0 ? std::sqrt(sse / dof) : 0, dof};
}

// A liberal pass (screening_alpha, sigma from first differences, which a step inflates) finds the
// segments; sigma pooled within them sets the price at alpha; the two alternate until the segments
// stay. Started at alpha instead, a step near the end inflates sigma enough to hide itself.
std::vector<std::size_t> fit_steps(const std::vector<double>& logs, const Sums& sums,
                                   const std::vector<std::size_t>& outliers, double floor, const ChangepointOptions& o,
                                   double& sigma)
{
  const std::size_t n = logs.size();
  const double diff_dof = static_cast<double>(n - 1) / 1.5; // first differences: lag-one correlation -1/2
  double beta = penalty(o.screening_alpha, n, diff_dof, sigma);
  std::vector<std::size_t> starts = segment(sums, n, beta, o.min_segment);
  std::vector<char> kept(n, 1);
  std::for_each(outliers.begin(), outliers.end(), [&](std::size_t i) { kept[i] = 0; });
  for (int round = 0; round < 5; ++round) {
    const auto [pooled, dof] = pooled_noise(logs, kept, starts);
    if (dof < 3) { // too few points to pool
      return segment(sums, n, penalty(o.alpha, n, diff_dof, sigma), o.min_segment);
    }
    sigma = std::max(pooled, floor);
    const double next_beta = penalty(o.alpha, n, dof, sigma);
    if (starts.empty() && next_beta >= beta) {
      break; // a dearer change finds none where a cheaper one found none: half the cost without steps
    }
    beta = next_beta;
    std::vector<std::size_t> next = segment(sums, n, beta, o.min_segment);
    if (next == starts) {
      break;
    }
    starts = std::move(next);
  }
  return starts;
}

std::vector<ChangePoint> describe(const std::vector<Point>& series, const Sums& sums,
                                  const std::vector<std::size_t>& starts, double sigma, std::size_t m)
{
  auto median_value = [&](Range r) {
    std::vector<double> v;
    for (std::size_t i = r.first; i < r.second; ++i) {
      v.push_back(series[i].value);
    }
    return median_in_place(v);
  };
  std::vector<ChangePoint> out;
  for (std::size_t j = 0; j < starts.size(); ++j) {
    const Range before = segment_at(starts, j, series.size()), after = segment_at(starts, j + 1, series.size());
    const double n1 = static_cast<double>(before.second - before.first);
    const double n2 = static_cast<double>(after.second - after.first);
    ChangePoint cp;
    cp.index = after.first;
    cp.campaign = series[after.first].campaign;
    cp.before = median_value(before);
    cp.after = median_value(after);
    cp.relative = cp.after / cp.before - 1;
    cp.direction = cp.after > cp.before ? Direction::slower : Direction::faster;
    cp.score = std::abs(sums.mean(after.first, after.second) - sums.mean(before.first, before.second)) /
               (sigma * std::sqrt(1 / n1 + 1 / n2));
    cp.confirmed = n2 >= static_cast<double>(m);
    out.push_back(cp);
  }
  return out;
}

// Mann-Kendall's z (S with its continuity correction over its standard deviation under no trend,
// ties corrected).
double mann_kendall(const std::vector<double>& y)
{
  const std::size_t w = y.size();
  double s = 0;
  for (std::size_t i = 0; i < w; ++i) {
    for (std::size_t j = i + 1; j < w; ++j) {
      s += y[j] > y[i] ? 1 : (y[j] < y[i] ? -1 : 0);
    }
  }
  auto term = [](std::size_t t) { return static_cast<double>(t * (t - 1) * (2 * t + 5)); };
  std::vector<double> sorted = y;
  std::sort(sorted.begin(), sorted.end());
  double var = term(w);
  for (auto i = sorted.begin(); i != sorted.end();) {
    const auto j = std::upper_bound(i, sorted.end(), *i);
    var -= term(static_cast<std::size_t>(j - i));
    i = j;
  }
  return s == 0 || var <= 0 ? 0 : (s - (s > 0 ? 1 : -1)) / std::sqrt(var / 18);
}

// Whether a least-squares line leaves smaller squared deviations than the best single step (both
// sides at least m points) does.
bool line_fits_better(const std::vector<double>& x, const std::vector<double>& y, std::size_t m)
{
  const std::size_t w = y.size();
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < w; ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
    syy += y[i] * y[i];
  }
  const double vxx = sxx - sx * sx / static_cast<double>(w), vxy = sxy - sx * sy / static_cast<double>(w);
  const double line = syy - sy * sy / static_cast<double>(w) - (vxx > 0 ? vxy * vxy / vxx : 0);
  const Sums sums(y);
  double step = std::numeric_limits<double>::infinity();
  for (std::size_t b = m; b + m <= w; ++b) {
    step = std::min(step, sums.cost(0, b) + sums.cost(b, w));
  }
  return line <= step;
}

// A significant Mann-Kendall trend over the trailing window that a line explains better than a
// step; its slope by Theil-Sen against campaign numbers.
std::optional<Drift> find_drift(const std::vector<Point>& series, const std::vector<double>& y,
                                const ChangepointOptions& o)
{
  const std::size_t n = y.size(), w = std::min(n, o.drift_window);
  if (w < o.drift_min_points) {
    return std::nullopt;
  }
  const std::vector<double> yw(y.end() - static_cast<std::ptrdiff_t>(w), y.end());
  std::vector<double> xw(w), slopes;
  for (std::size_t i = 0; i < w; ++i) {
    xw[i] = static_cast<double>(series[n - w + i].campaign);
  }
  Drift d;
  d.z = mann_kendall(yw);
  d.p = std::erfc(std::abs(d.z) / std::sqrt(2.0));
  if (d.p >= o.drift_alpha || !line_fits_better(xw, yw, o.min_segment)) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < w; ++i) {
    for (std::size_t j = i + 1; j < w; ++j) {
      slopes.push_back((yw[j] - yw[i]) / (xw[j] - xw[i]));
    }
  }
  d.first_index = n - w;
  d.last_index = n - 1;
  d.first_campaign = series[n - w].campaign;
  d.last_campaign = series[n - 1].campaign;
  d.slope = std::expm1(median_in_place(slopes));
  return d;
}

} // namespace

SeriesChanges find_changes(const std::vector<Point>& series, const ChangepointOptions& options)
{
  validate(series, options);
  SeriesChanges r;
  const std::size_t n = series.size();
  if (n == 0) {
    return r;
  }
  std::vector<double> logs(n);
  std::transform(series.begin(), series.end(), logs.begin(), [](const Point& p) { return std::log(p.value); });
  const double floor = noise_floor(series, options.min_noise);
  r.noise = std::max(mad_noise(logs), floor);
  for (int i = 0; i < 2; ++i) {
    r.noise = std::max(clipped_noise(logs, r.noise), floor);
  }
  const std::vector<double> y = hampel(logs, r.noise, options, r.outliers);
  const Sums sums(y);
  const std::vector<std::size_t> starts = fit_steps(logs, sums, r.outliers, floor, options, r.noise);
  r.changes = describe(series, sums, starts, r.noise, options.min_segment);
  r.drift = find_drift(series, y, options);
  for (ChangePoint& cp : r.changes) {
    cp.in_drift = r.drift && cp.index > r.drift->first_index;
  }
  return r;
}

} // namespace zl::results::history
