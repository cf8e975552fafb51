// Where the level of one series of latencies changes, and whether it drifts.
//
// A series is one (op, dtype, shape, device, caliber) over campaigns: one latency a campaign (a
// median), oldest first. Everything is done on ln(latency): noise is multiplicative, a step is a
// ratio, and a change of +3% and one of -3% weigh the same.
//
// Method, in order (docs/statistics.md, "Change points in a history", has the measured figures):
// 1. Noise. A first guess sigma0 = 1.4826 MAD(first differences) / sqrt(2): differences cancel the
//    level, so steps and drift barely move it, and the MAD ignores spikes. Two steps of a clipped
//    standard deviation of the differences (within 3 sigma0, corrected for the truncation) make it
//    about 2.7x as efficient. Floor: min_noise, and the typical 95% half-width of the points'
//    intervals / 1.96 where given (between campaigns a median moves at least by its sampling error).
// 2. Spikes. A Hampel filter (Hampel, "The influence curve and its role in robust estimation",
//    JASA 1974; Pearson, "Outliers in process modeling and identification", IEEE TCST 2002): a
//    point further than filter_threshold sigma0 from the median of the 2k+1 points around it is
//    replaced by that median, repeated until none moves. It takes out runs of up to k spikes and
//    keeps a step whose new level lasts k+1 points (k = min_segment - 1). The window leans inward
//    at the start and shrinks at the end, so the newest point is never replaced: a spike there is
//    a tentative change.
// 3. Steps. Penalized least squares on the filtered values, the model of PELT (Killick, Fearnhead,
//    Eckley, "Optimal detection of changepoints with a linear computational cost", JASA 2012)
//    solved exactly by optimal partitioning (Jackson et al., "An algorithm for optimal partitioning
//    of data on an interval", IEEE SPL 2005): minimize the squared deviations from segment means
//    plus beta per change, beta = sigma^2 t^2, t the two-sided Student quantile at alpha / n
//    (Bonferroni over the n places a change can start; Cornish-Fisher expansion of t). sigma is
//    pooled within the segments (the two-sample t-test's estimate where there is one change) and
//    the segmentation redone until it stays, starting from a liberal pass at screening_alpha (else
//    a step near the end inflates sigma enough to hide itself). Every segment but the last has at
//    least min_segment points; the last may be shorter, and a change into it is tentative.
//    E-divisive means (Matteson, James, JASA 2014) was not taken: its permutation test costs
//    hundreds of passes per candidate over ~35,000 series a night, and Hunter (Fleming et al.,
//    ICPE 2023; now Apache Otava) replaced it by a t-test, what the penalty above is for one change.
// 4. Drift, over the last drift_window points (what a nightly watcher asks: is it moving now): the
//    Mann-Kendall trend test (Mann, "Nonparametric tests against trend", Econometrica 1945;
//    Kendall, "Rank correlation methods", 1975; variance with ties) on the filtered values, the
//    slope by Theil-Sen (Sen, "Estimates of the regression coefficient based on Kendall's tau",
//    JASA 1968) against campaign numbers. A trend is a drift only where a straight line fits the
//    window better than the best single step does, so a step is not also called a drift; change
//    points inside a reported drift are marked in_drift.
//
// Cost: O(n^2) for the segmentation, twice or a few times (n <= ~400 a series), O(w^2) for the
// drift; ~0.1-0.3 ms for 365 points (bench/changepoint_accuracy.cpp).
// Values must be finite and > 0, intervals (when given) finite with 0 < lo <= hi, campaigns
// strictly increasing: anything else throws std::invalid_argument naming the point's index, since
// a store that holds such a value has a bug worth seeing rather than a point worth skipping.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace zl::results::history {

struct Point
{
  double value = 0;            // latency in ms, > 0
  std::optional<double> ci_lo; // its 95% interval, when known
  std::optional<double> ci_hi;
  std::size_t campaign = 0; // campaign number, strictly increasing along the series
};

// Defaults chosen with bench/changepoint_accuracy.cpp (1% noise, 3% steps, series of 30-365).
struct ChangepointOptions
{
  // Steps' false alarm level per series (Bonferroni over positions, so conservative for one
  // change); 5e-4 measured under 1 in 1,000 step-free series with spikes, at every length.
  double alpha = 5e-4;
  double screening_alpha = 0.05; // the liberal first pass, whose segments sigma is pooled over
  // Persistence: points a new level must hold to be confirmed. 4, not 3: spikes of 1 campaign in
  // 50 drawn independently put three in a row into ~0.3% of 365-point series, and three +20%
  // campaigns are a level of three; four in a row, 1 in 17,000. A 3% step 5 campaigns old is
  // confirmed as often either way.
  std::size_t min_segment = 4;
  std::size_t filter_half_width = 3; // Hampel window 2k+1; k = min_segment - 1 keeps every level that can confirm
  // In guessed sigmas. A 20% spike is 18 sigma at 1% noise; below ~4.5, points merely far from a
  // median lower the noise estimate of a series whose guess came out low by chance.
  double filter_threshold = 5;
  double min_noise = 1e-3;           // floor of sigma (relative): identical values are not infinitely precise
  std::size_t drift_window = 30;     // the drift test's trailing window, in points
  std::size_t drift_min_points = 10; // fewer points in the series: no drift test
  double drift_alpha = 1e-4;         // two-sided Mann-Kendall level; a 0.3%/campaign drift over 30 gives z ~ 6
};

enum class Direction { faster, slower };

struct ChangePoint
{
  std::size_t index = 0;    // first point of the new level
  std::size_t campaign = 0; // its campaign
  double before = 0;        // median of the segment before (ms)
  double after = 0;         // median of the segment from index on (ms)
  double relative = 0;      // after / before - 1
  Direction direction = Direction::slower;
  double score = 0;       // |difference of segment means in ln| / its standard error (a z)
  bool confirmed = false; // the new level held min_segment points; else it is the tentative tail
  bool in_drift = false;  // inside a reported drift's window: part of a slope rather than a step
};

struct Drift
{
  std::size_t first_index = 0, last_index = 0; // the window, both ends included
  std::size_t first_campaign = 0, last_campaign = 0;
  double slope = 0; // relative change per campaign (Theil-Sen, exp(slope of ln) - 1)
  double z = 0;     // Mann-Kendall statistic, standardized
  double p = 1;     // its two-sided p-value
};

struct SeriesChanges
{
  std::vector<ChangePoint> changes; // oldest first
  std::optional<Drift> drift;
  double noise = 0;                  // sigma of ln(latency) used, ~ the relative noise
  std::vector<std::size_t> outliers; // indices the spike filter replaced
};

// Throws std::invalid_argument for an invalid point (see above) or options out of range
// (min_segment 0, a level outside (0, 1), a threshold <= 0, min_noise < 0, drift_min_points < 3).
SeriesChanges find_changes(const std::vector<Point>& series, const ChangepointOptions& options = {});

} // namespace zl::results::history
