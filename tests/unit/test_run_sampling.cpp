#include "run/sampling.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl::run;

TEST_CASE("parse_sampling: fixed, the default, and each key")
{
  CHECK(parse_sampling("fixed").fixed());
  const auto d = parse_sampling(k_sampling_default);
  CHECK(d.ci == doctest::Approx(0.005));
  CHECK(d.min_samples == 10);
  CHECK(d.max_samples == 100000);
  CHECK(d.max_time_s == doctest::Approx(1));
  CHECK(to_string(d) == k_sampling_default);
  const auto s = parse_sampling("max-time=2.5,ci=1%,min=20");
  CHECK(s.ci == doctest::Approx(0.01));
  CHECK(s.min_samples == 20);
  CHECK(s.max_time_s == doctest::Approx(2.5));
  CHECK(to_string(parse_sampling(to_string(s))) == to_string(s)); // canonical
  CHECK(to_string(parse_sampling("fixed")) == "fixed");
}

TEST_CASE("parse_sampling refuses what it cannot use, naming --sampling")
{
  for (const char* bad :
       {"", "ci=0.5", "ci=0%", "ci=-1%", "ci=nan%", "ci=1%,ci=2%", "ci=1%,min=0", "ci=1%,min=1.5", "ci=1%,samples=3",
        "min=10", "ci=1%,min=20,max=10", "ci=1%,min-time=5,max-time=1", "ci", "ci=1%,,max=3", "Fixed"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parse_sampling(bad), doctest::Contains("--sampling"), zl::Error);
  }
}
