#include "report/data.hpp"

#include <doctest/doctest.h>

using namespace zl::report;

TEST_CASE("zl::report::campaign_of")
{
  CHECK(campaign_of("/runs/night-1/abs") == "/runs/night-1");
  CHECK(campaign_of("/runs/night-1/round-3/abs") == "/runs/night-1");
  CHECK(campaign_of("/runs/night-1/rounds/abs") == "/runs/night-1/rounds");
}
