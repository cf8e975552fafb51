#include "results/compare/mann_whitney.hpp"

#include <doctest/doctest.h>

using namespace zl::results;
using namespace zl::results::compare;

// Expected values: SciPy's documented example (scipy.stats.mannwhitneyu) and, for the others,
// counting every arrangement (exact) or SciPy's asymptotic formula, computed independently.
TEST_CASE("zl::results::compare::mann_whitney: exact distribution")
{
  // SciPy's example: males vs females, U = 17, p = 0.1111111111111111 (method="exact").
  auto t = mann_whitney({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  CHECK(t.exact);
  CHECK(t.u == 17);
  CHECK(t.p == doctest::Approx(0.1111111111111111).epsilon(1e-12));

  // Complete separation: p = 2 / C(8, 4) = 2 / 70.
  t = mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8});
  CHECK(t.exact);
  CHECK(t.u == 0);
  CHECK(t.p == doctest::Approx(2.0 / 70));
  CHECK(mann_whitney({5, 6, 7, 8}, {1, 2, 3, 4}).u == 16);
  CHECK(mann_whitney({5, 6, 7, 8}, {1, 2, 3, 4}).p == doctest::Approx(2.0 / 70));

  // 3 against 7: U = 21, p = 0.016666… (counted over all 120 arrangements).
  t = mann_whitney({1.1, 1.3, 1.2}, {1.0, 1.05, 0.9, 0.95, 0.97, 1.01, 0.99});
  CHECK(t.exact);
  CHECK(t.u == 21);
  CHECK(t.p == doctest::Approx(1.0 / 60));

  // Interleaved samples: U = 6 of 9, p = 0.7; identical ones give p = 1, never above it.
  CHECK(mann_whitney({1, 2, 3}, {1.5, 2.5, 0.5}).p == doctest::Approx(0.7));
  CHECK(mann_whitney({1, 2, 3}, {1, 2, 3}).p == 1.0);
}

TEST_CASE("zl::results::compare::mann_whitney: normal approximation with ties and many samples")
{
  // SciPy's example with method="asymptotic": 0.11134688653314041.
  // Ties force the approximation; so does more than 8 values on each side.
  auto t = mann_whitney({1, 2, 2, 3, 4}, {2, 3, 5, 6, 7});
  CHECK_FALSE(t.exact);
  CHECK(t.u == 4.5);
  CHECK(t.p == doctest::Approx(0.11161176829829222).epsilon(1e-9));

  std::vector<double> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(1.0 + 0.01 * i);
  }
  for (int i = 0; i < 12; ++i) {
    b.push_back(1.05 + 0.01 * i);
  }
  t = mann_whitney(a, b);
  CHECK_FALSE(t.exact);
  CHECK(t.u == 12.5);
  CHECK(t.p == doctest::Approx(0.001912641502374408).epsilon(1e-9));

  // Everything tied: no evidence.
  CHECK(mann_whitney({1, 1, 1}, {1, 1}).p == 1.0);
  // An empty side: no test.
  CHECK(mann_whitney({}, {1, 2}).p == 1.0);
}

TEST_CASE("zl::results::compare::min_p_value")
{
  // Two rounds a side can never reach 0.05; four can.
  CHECK(min_p_value(2, 2) == doctest::Approx(2.0 / 6));
  CHECK(min_p_value(3, 3) == doctest::Approx(0.1));
  CHECK(min_p_value(4, 4) == doctest::Approx(2.0 / 70));
  CHECK(min_p_value(0, 4) == 1.0);
}
