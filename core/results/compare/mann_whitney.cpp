#include "results/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace zl::results::compare {

namespace {

// Counts of U = 0 … m·n over all C(m+n, m) orderings: the coefficients of the Gaussian
// binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Unsigned arithmetic
// wraps, which keeps every step exact modulo 2^64; the true counts are below that bound
// whenever C(m+n, m) is (checked by the caller).
std::vector<std::uint64_t> u_counts(std::size_t m, std::size_t n)
{
  std::vector<std::uint64_t> c(m * n + 1, 0);
  c[0] = 1;
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t k = c.size(); k-- > n + i;) {
      c[k] -= c[k - n - i];
    }
    for (std::size_t k = i; k < c.size(); ++k) {
      c[k] += c[k - i];
    }
  }
  return c;
}

// C(m+n, m) when it fits in 63 bits, else 0.
std::uint64_t binomial(std::size_t m, std::size_t n)
{
  std::uint64_t r = 1;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::uint64_t num = n + i;
    if (r > (std::uint64_t{1} << 62) / num) {
      return 0;
    }
    r = r * num / i; // exact: r·(n+i) is C(n+i, i)·i
  }
  return r;
}

} // namespace

UTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b)
{
  UTest t;
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) {
    return t;
  }
  // Midranks of the pooled sample, and the tie term sum(t^3 - t).
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto value = [&](std::size_t i) { return i < n1 ? a[i] : b[i - n1]; };
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return value(x) < value(y); });
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && value(order[j + 1]) == value(order[i])) {
      ++j;
    }
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    const double ties = static_cast<double>(j - i + 1);
    tie_term += ties * ties * ties - ties;
    for (std::size_t k = i; k <= j; ++k) {
      rank_sum_a += order[k] < n1 ? rank : 0.0;
    }
    i = j + 1;
  }
  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2), dn = static_cast<double>(n);
  t.u = rank_sum_a - d1 * (d1 + 1) / 2;
  const double u_max = std::max(t.u, d1 * d2 - t.u);

  const std::size_t small = std::min(n1, n2), large = std::max(n1, n2);
  const std::uint64_t total = tie_term == 0 && small <= 8 ? binomial(small, large) : 0;
  if (total != 0) {
    // P(U >= u_max) = P(U <= n1·n2 - u_max) by symmetry; two-sided doubles it.
    const auto counts = u_counts(small, large);
    const auto u_min = static_cast<std::size_t>(std::llround(d1 * d2 - u_max));
    double tail = 0;
    for (std::size_t k = 0; k <= u_min; ++k) {
      tail += static_cast<double>(counts[k]);
    }
    t.p = std::min(1.0, 2.0 * tail / static_cast<double>(total));
    t.exact = true;
    return t;
  }
  const double mean = d1 * d2 / 2;
  const double variance = d1 * d2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (variance <= 0) {
    return t; // every value tied: no evidence either way
  }
  const double z = (u_max - mean - 0.5) / std::sqrt(variance);
  t.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return t;
}

double min_p_value(std::size_t n1, std::size_t n2)
{
  if (n1 == 0 || n2 == 0) {
    return 1.0;
  }
  std::vector<double> a(n1), b(n2);
  std::iota(a.begin(), a.end(), 0.0);
  std::iota(b.begin(), b.end(), static_cast<double>(n1));
  return mann_whitney(a, b).p;
}

} // namespace zl::results::compare
