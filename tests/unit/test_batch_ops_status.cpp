#include "batch/ops_status.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::batch::parse_ops_status: rows round-trip; an op that is not a name is refused with its line")
{
  batch::OpStatus s;
  s.op = "abs";
  s.status = "ok";
  s.exit_code = 0;
  s.rows = 9;
  s.duration_s = 1.5;
  s.run_dir = "/c/abs";
  const auto back = batch::parse_ops_status(batch::format_ops_status({s}), "ops_status.csv");
  REQUIRE(back.size() == 1);
  CHECK(back[0].op == "abs");
  CHECK(back[0].rows == 9);
  auto bad = s;
  bad.op = "../victim";
  CHECK_THROWS_WITH_AS(batch::parse_ops_status(batch::format_ops_status({s, bad}), "c/ops_status.csv"),
                       doctest::Contains("c/ops_status.csv:3: '../victim' is not an op name"), Error);
}
