// A verdict from the samples of one campaign a side (docs/statistics.md).
//
// Each side of a pairing is its rows' ln(median) with a standard error: one row (one round):
// Price and Bonett's distribution-free error of the median from its samples; several rounds:
// the mean of the rounds' ln(median), whose variance is the larger of the spread between rounds
// and the rounds' own errors, over the number of rounds (a per-round test: a difference that
// holds within a process but not across processes is not called). A side with one round has
// no spread between processes of its own: the between-process variance tau^2 is added to it,
// estimated over the whole comparison (robustly: the tau^2 at which the median of
// D^2 / (v + tau^2) is the median of chi-square with one degree of freedom), or given.
// D = ln(B) - ln(A) gets a 95% interval (normal, or Student's t with Welch's degrees of freedom
// where rounds were averaged) and a p-value; p-values are adjusted over all pairings by
// Benjamini-Hochberg. same: the interval inside +-threshold; slower or faster: the interval
// excludes no change and q < alpha; else ambiguous.
#pragma once

#include "results/samples.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace zl::results::compare {

// One side of one pairing.
struct SideEstimate
{
  double log_median = 0; // mean over rounds of ln(median)
  double variance = 0;   // of log_median
  std::uint32_t rounds = 0;
  bool valid() const { return rounds > 0; }
};

// From the samples of each round (row) of one key on one side; rounds without a usable error
// are left out. Not valid when none is left.
SideEstimate estimate_side(const std::vector<const SampleSet*>& rounds);

struct Interval
{
  double diff = 0, lo = 0, hi = 0; // B/A - 1 and its 95% interval
  double p = 1;
};

// D's interval and p-value; tau2: the between-process variance (ln units) a one-round side adds.
Interval interval(const SideEstimate& a, const SideEstimate& b, double tau2);

// The between-process variance of D (ln units) over pairings of one round a side, in two
// parts, because a process's state moves a whole op's rows together (each op is a test of its
// own, timed minutes apart): row2 for a row on its own, op2 for an op as a whole (the spread of
// the ops' median D). Each is 0 when the pairings show no spread beyond what the level below
// explains; with fewer than k_min_for_tau pairings nothing can be told (known is false), and
// with fewer than k_min_ops ops op2 is 0 and row2 is estimated from D itself.
inline constexpr std::size_t k_min_for_tau = 20;
inline constexpr std::size_t k_min_ops = 3;
struct ProcessNoise
{
  double row2 = 0, op2 = 0;
  bool known = false;                               // enough pairings of one round a side to tell
  double side2() const { return (row2 + op2) / 2; } // what a one-round side adds
};
// group: the op of each pairing (any numbering); a, b and group are of one length.
ProcessNoise estimate_process_noise(const std::vector<SideEstimate>& a, const std::vector<SideEstimate>& b,
                                    const std::vector<std::size_t>& group);

// Benjamini-Hochberg q-values of p, in p's order.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

} // namespace zl::results::compare
