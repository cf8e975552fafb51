// Every timed sample of a row, and what they say: the distribution, the confidence interval of
// its median, and the warnings of an unstable measurement (docs/statistics.md says why each).
//
// A row's latency is one statistic (FlagGems asks for the median) of many timed samples; the
// samples say how much that statistic can be trusted. The timing plugins write them to
// samples.bin (docs/plan-file.md); zl keeps them beside the row.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::results {

// Why sampling of a row stopped.
enum class SampleStop : std::uint8_t {
  fixed,       // one timing call, as the benchmark asked (adaptive sampling off)
  converged,   // the median's confidence interval reached the width asked for
  max_samples, // the cap on samples: not converged
  max_time,    // the cap on time: not converged
};
const char* to_string(SampleStop s);
// The stop named s; false when s names none.
bool parse_sample_stop(std::string_view s, SampleStop& out);

// Warnings of an unstable row, as bits (pyperf's checks, on the median's terms).
enum SampleWarning : std::uint8_t {
  warn_noisy = 1,    // IQR over the median above k_noisy
  warn_outliers = 2, // at least k_outlier_share of the samples far: beyond Tukey's far fences and k_far off the median
  warn_short = 4,    // a sample under k_short_ms: the clock's resolution is a large part of it
  warn_few = 8,      // fewer than k_few samples: no interval can be told
};
inline constexpr double k_noisy = 0.10;
inline constexpr double k_outlier_share = 0.01;
inline constexpr double k_far = 0.10;
inline constexpr double k_short_ms = 0.010;
inline constexpr std::uint32_t k_few = 6;
// "noisy,outliers": the names of the bits set; "" when none.
std::string warnings_text(std::uint8_t warnings);

struct SampleStats
{
  std::uint32_t n = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0; // ms; quartiles interpolated linearly
  // The 95% distribution-free interval of the median: order statistics x(c), x(n+1-c), where c
  // comes from the Binomial(n, 1/2) distribution. Equal to the median when n < k_few.
  double ci_lo = 0, ci_hi = 0;
  double ci_level = 0; // the exact coverage of [ci_lo, ci_hi] (>= 0.95 when n >= k_few)
  // The standard error of ln(median) (Price and Bonett 2002, from McKean and Schrader 1984):
  // (ln x(n+1-c) - ln x(c)) / (2 z), c = round((n + 1)/2 - sqrt(n)), z the normal quantile of
  // that interval's binomial coverage. NaN when n < k_few or a sample is not positive.
  double log_se = 0;
  std::uint32_t outliers = 0; // beyond Q1 - 3 IQR or Q3 + 3 IQR, and k_far off the median
  std::uint8_t warnings = 0;  // SampleWarning bits

  double noise() const { return median > 0 ? (q3 - q1) / median : 0; } // IQR over the median
  double ci_width() const { return median > 0 ? (ci_hi - ci_lo) / median : 0; }
};

// The statistics of ms (in any order); n == 0 for none.
SampleStats describe_samples(std::vector<double> ms);

// c of the interval above: the 1-based rank of its lower end, and its exact coverage.
struct MedianRank
{
  std::uint32_t c = 0;
  double coverage = 0;
};
MedianRank median_rank(std::uint32_t n, double level = 0.95);

// The median (the mean of the two middle values for an even count); NaN for none. The first
// reorders v in place, for callers that reuse the vector (a million pairings).
double median_in_place(std::vector<double>& v);
double median_of(std::vector<double> v);

// The standard normal distribution: Phi(z), and its inverse.
double normal_cdf(double z);
double normal_quantile(double p);

// One side (torch's or FlagGems') of one row: every sample, in the order timed.
struct SampleSet
{
  std::vector<float> ms;        // per sample: milliseconds
  std::vector<float> at_s;      // per sample: seconds after t0 when it ended
  double t0 = 0;                // Unix time of the first call's start
  bool stamps_measured = false; // false: spread evenly over each timing call (the timer gave a list)
  std::string_view timer;       // graph, direct, profiler (the store of its run owns the text)
  SampleStop stop = SampleStop::fixed;
  std::uint32_t calls = 0; // timing calls made for the row
  double returned = 0;     // what the timer returned for the row (its statistic)
  SampleStats stats;
};

} // namespace zl::results
