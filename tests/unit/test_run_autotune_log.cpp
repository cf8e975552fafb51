#include "run/autotune_log.hpp"

#include <doctest/doctest.h>

using namespace zl::run;

TEST_CASE("zl::run::parse_marker_fields: bare values, JSON strings, empty values")
{
  const auto f = parse_marker_fields(R"(reason=key_missing kernel=a.b key="M:1, N:\"2\"" found= last=x)");
  REQUIRE(f.size() == 5);
  CHECK(f[0] == std::make_pair(std::string("reason"), std::string("key_missing")));
  CHECK(f[2].second == "M:1, N:\"2\"");
  CHECK(f[3] == std::make_pair(std::string("found"), std::string()));
  CHECK(f[4].second == "x");
}

TEST_CASE("zl::run::tally_autotune: fallbacks, tuned keys and the summary of a run log")
{
  const auto t = tally_autotune("ZL_RUN autotune=replay\n"
                                "AUTOTUNE_REPLAY_FALLBACK reason=key_missing kernel=k key=M:1\n"
                                "AUTOTUNE_BENCHMARKED kernel=k key=M:1 configs=12 seconds=0.5\n"
                                "some table line AUTOTUNE_REPLAY_FALLBACK not at the start\n"
                                "AUTOTUNE_REPLAY_FALLBACK reason=config_unknown kernel=k key=M:2\n"
                                "AUTOTUNE_BENCHMARKED kernel=k key=M:2 configs=4\n"
                                "AUTOTUNE_SUMMARY mode=replay pinned=3 fallbacks=2\n");
  CHECK(t.fallbacks == 2);
  CHECK(t.tuned_keys == 2);
  CHECK(t.configs_benchmarked == 16);
  REQUIRE(t.summary.size() == 3);
  CHECK(t.summary[1] == std::make_pair(std::string("pinned"), std::string("3")));
  CHECK(tally_autotune("no markers\n").summary.empty());
}
