#include "results/samples.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace zl::results;

TEST_CASE("median_rank: the binomial interval of the median")
{
  // P(Bin(10, 1/2) <= 1) = 11/1024: [x(2), x(9)] covers 1 - 22/1024.
  CHECK(median_rank(10).c == 2);
  CHECK(median_rank(10).coverage == doctest::Approx(1 - 22.0 / 1024));
  CHECK(median_rank(100).c == 40);
  CHECK(median_rank(100).coverage == doctest::Approx(0.9648).epsilon(1e-4));
  CHECK(median_rank(5).c == 0); // too few for any 95% interval
  // The normal approximation above 1000 agrees with the plugins' (zl_samples.median_rank).
  CHECK(median_rank(2000).c == 956);
  CHECK(median_rank(2000).coverage >= 0.95);
}

TEST_CASE("describe_samples: quartiles, interval, error of ln(median), warnings")
{
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) {
    ms.push_back(1.0 + 0.01 * i);
  }
  const auto s = describe_samples(ms);
  CHECK(s.n == 20);
  CHECK(s.median == doctest::Approx(1.095));
  CHECK(s.q1 == doctest::Approx(1.0475));
  CHECK(s.q3 == doctest::Approx(1.1425));
  CHECK(s.noise() == doctest::Approx(0.095 / 1.095));
  // Price-Bonett: c = 6, z = Phi^-1(1 - P(Bin(20, 1/2) <= 5)); the plugins' arithmetic gave this.
  CHECK(s.log_se == doctest::Approx(0.02016027856504106).epsilon(1e-9));
  CHECK(s.ci_lo <= s.median);
  CHECK(s.ci_hi >= s.median);
  CHECK(s.warnings == 0);

  SUBCASE("noisy and short")
  {
    const auto n = describe_samples({0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007});
    CHECK((n.warnings & warn_noisy) != 0);
    CHECK((n.warnings & warn_short) != 0);
  }
  SUBCASE("few: no interval, no error")
  {
    const auto f = describe_samples({1, 1.1, 1.2});
    CHECK((f.warnings & warn_few) != 0);
    CHECK(std::isnan(f.log_se));
    CHECK(f.ci_lo == f.median);
  }
  SUBCASE("outliers: far beyond the fences and 10% off the median")
  {
    std::vector<double> v(200, 1.0);
    for (int i = 0; i < 200; ++i) {
      v[static_cast<std::size_t>(i)] += 0.0001 * i;
    }
    v[0] = 5, v[1] = 6; // 1%
    const auto o = describe_samples(v);
    CHECK(o.outliers == 2);
    CHECK((o.warnings & warn_outliers) != 0);
    CHECK(warnings_text(o.warnings) == "outliers");
  }
  SUBCASE("none")
  {
    CHECK(describe_samples({}).n == 0);
  }
}

TEST_CASE("sample stops by name")
{
  SampleStop s = SampleStop::fixed;
  CHECK(parse_sample_stop("max_time", s));
  CHECK(s == SampleStop::max_time);
  CHECK(std::string(to_string(SampleStop::converged)) == "converged");
  CHECK_FALSE(parse_sample_stop("cap", s));
}

TEST_CASE("normal_quantile inverts normal_cdf")
{
  CHECK(normal_quantile(0.975) == doctest::Approx(1.959964).epsilon(1e-6));
  CHECK(normal_cdf(normal_quantile(0.1)) == doctest::Approx(0.1));
}
