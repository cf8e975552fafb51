#include "batch/progress.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::batch::makespan_text: a ratio only when the ideal is a second or more")
{
  const auto usual = batch::makespan_text(12.0, 20.0, 2);
  CHECK(usual.find("makespan 12.0 s against an ideal 10.0 s (total work 20.0 s / 2 devices): 1.20x") !=
        std::string::npos);
  // Ops refused at preflight take no time: start-up cost is not a 13x slowdown.
  const auto instant = batch::makespan_text(0.13, 0.01, 1);
  CHECK(instant.find("too short to compare") != std::string::npos);
  CHECK(instant.find(".00x") == std::string::npos);
  CHECK(batch::makespan_text(0.5, 0.0, 0).find("/ 1 devices") != std::string::npos); // no division by zero
}
