#include "results/samples.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace zl::results {

namespace {

constexpr std::array<std::pair<SampleStop, const char*>, 4> k_stops{{
    {SampleStop::fixed, "fixed"},
    {SampleStop::converged, "converged"},
    {SampleStop::max_samples, "max_samples"},
    {SampleStop::max_time, "max_time"},
}};

// Linear interpolation between order statistics, as numpy's default and Triton's quantile.
double quantile(const std::vector<double>& sorted, double q)
{
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto low = static_cast<std::size_t>(pos);
  const auto high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (pos - static_cast<double>(low));
}

} // namespace

double median_in_place(std::vector<double>& v)
{
  if (v.empty()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) {
    return *mid;
  }
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

double median_of(std::vector<double> v)
{
  return median_in_place(v);
}

double normal_cdf(double z)
{
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double normal_quantile(double p)
{
  double lo = -40, hi = 40; // bisection: <cmath> has no inverse of erf
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

namespace {

// P(X = k) for X ~ Binomial(n, 1/2), in log space (n up to the normal approximation's start).
double binomial_half_pmf(std::uint32_t n, std::uint32_t k)
{
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0));
}

// P(X <= k) for X ~ Binomial(n, 1/2): exact up to 1000, else normal with continuity correction.
double binomial_half_cdf(std::uint32_t n, std::uint32_t k)
{
  if (n > 1000) {
    return normal_cdf((k + 0.5 - n / 2.0) / (std::sqrt(static_cast<double>(n)) / 2));
  }
  double sum = 0;
  for (std::uint32_t i = 0; i <= k; ++i) {
    sum += binomial_half_pmf(n, i);
  }
  return sum;
}

double log_median_se(const std::vector<double>& sorted)
{
  const auto n = static_cast<std::uint32_t>(sorted.size());
  const double c_real = std::round((n + 1) / 2.0 - std::sqrt(static_cast<double>(n)));
  if (n < k_few || c_real < 1 || sorted.front() <= 0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const auto c = static_cast<std::uint32_t>(c_real);
  const double z = normal_quantile(1 - binomial_half_cdf(n, c - 1));
  return (std::log(sorted[n - c]) - std::log(sorted[c - 1])) / (2 * z);
}

} // namespace

const char* to_string(SampleStop s)
{
  for (const auto& [stop, name] : k_stops) {
    if (stop == s) {
      return name;
    }
  }
  return "fixed";
}

bool parse_sample_stop(std::string_view s, SampleStop& out)
{
  for (const auto& [stop, name] : k_stops) {
    if (s == name) {
      out = stop;
      return true;
    }
  }
  return false;
}

std::string warnings_text(std::uint8_t warnings)
{
  static constexpr std::array<std::pair<SampleWarning, const char*>, 4> k_names{
      {{warn_noisy, "noisy"}, {warn_outliers, "outliers"}, {warn_short, "short"}, {warn_few, "few"}}};
  std::string out;
  for (const auto& [bit, name] : k_names) {
    if ((warnings & bit) != 0) {
      out += (out.empty() ? "" : ",") + std::string(name);
    }
  }
  return out;
}

MedianRank median_rank(std::uint32_t n, double level)
{
  const double tail = (1 - level) / 2;
  if (n > 1000) { // the normal approximation of the binomial, with continuity correction
    const double sd = std::sqrt(static_cast<double>(n)) / 2;
    const auto c = static_cast<std::uint32_t>(std::floor(n / 2.0 + normal_quantile(tail) * sd + 0.5));
    return {c, 1 - 2 * normal_cdf((c - 0.5 - n / 2.0) / sd)};
  }
  MedianRank best;
  double cdf = 0;
  for (std::uint32_t c = 1; c <= n / 2; ++c) {
    cdf += binomial_half_pmf(n, c - 1); // P(X <= c - 1): the interval misses on the low side
    if (cdf > tail) {
      break;
    }
    best = {c, 1 - 2 * cdf};
  }
  return best;
}

SampleStats describe_samples(std::vector<double> ms)
{
  SampleStats s;
  s.n = static_cast<std::uint32_t>(ms.size());
  if (ms.empty()) {
    return s;
  }
  std::sort(ms.begin(), ms.end());
  s.min = ms.front(), s.max = ms.back();
  s.q1 = quantile(ms, 0.25), s.median = quantile(ms, 0.5), s.q3 = quantile(ms, 0.75);
  s.ci_lo = s.ci_hi = s.median;
  const auto rank = median_rank(s.n);
  if (rank.c > 0) {
    s.ci_lo = ms[rank.c - 1];
    s.ci_hi = ms[s.n - rank.c];
    s.ci_level = rank.coverage;
  }
  s.log_se = log_median_se(ms);
  const double iqr = s.q3 - s.q1;
  for (const double v : ms) {
    const bool beyond = v < s.q1 - 3 * iqr || v > s.q3 + 3 * iqr;
    s.outliers += beyond && std::fabs(v - s.median) > k_far * s.median ? 1 : 0;
  }
  const bool flags[] = {s.noise() > k_noisy, s.outliers >= std::max(1.0, k_outlier_share * s.n), s.min < k_short_ms,
                        s.n < k_few};
  const SampleWarning bits[] = {warn_noisy, warn_outliers, warn_short, warn_few};
  for (std::size_t i = 0; i < 4; ++i) {
    s.warnings = static_cast<std::uint8_t>(s.warnings | (flags[i] ? bits[i] : 0));
  }
  return s;
}

} // namespace zl::results
