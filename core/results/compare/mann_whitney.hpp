// The two-sided Mann-Whitney U test, as Google Benchmark's compare.py and asv use it to tell a
// change from noise between repetitions.
//
// The p-value is exact when there are no ties and one sample has at most 8 values (SciPy's
// mannwhitneyu with method="auto" chooses the same way): the distribution of U is counted.
// Otherwise it is the normal approximation with the tie correction of the variance and a
// continuity correction of 0.5 (SciPy's method="asymptotic", use_continuity=True).
#pragma once

#include <vector>

namespace zl::results::compare {

struct UTest
{
  double u = 0;       // U of the first sample: pairs (a, b) with a > b, ties counting one half
  double p = 1;       // two-sided p-value
  bool exact = false; // computed from the exact distribution
};

// Both samples need at least one value; otherwise p is 1.
UTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p-value samples of these sizes can reach (no ties): when it is not
// below alpha, no difference can be called significant however large it is.
double min_p_value(std::size_t n1, std::size_t n2);

} // namespace zl::results::compare
