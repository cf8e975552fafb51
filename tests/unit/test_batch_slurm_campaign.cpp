#include "batch/slurm_campaign.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::batch::slice_ops: round robin over the longest-first order")
{
  const std::vector<std::string> ops = {"a", "b", "c", "d", "e"};
  const auto two = batch::slice_ops(ops, 2);
  REQUIRE(two.size() == 3);
  CHECK(two[0] == std::vector<std::string>{"a", "d"});
  CHECK(two[1] == std::vector<std::string>{"b", "e"});
  CHECK(two[2] == std::vector<std::string>{"c"});
  CHECK(batch::slice_ops(ops, 1).size() == 5);
  CHECK(batch::slice_ops(ops, 100).size() == 1);
  CHECK(batch::slice_ops(ops, 0).size() == 5); // at least one op a task
  CHECK(batch::slice_ops({}, 3).empty());
}

TEST_CASE("zl::batch::default_ops_per_task")
{
  CHECK(batch::default_ops_per_task(5, std::nullopt) == 1);
  CHECK(batch::default_ops_per_task(1000, std::nullopt) == 16);
  CHECK(batch::default_ops_per_task(1000, 8u) == 125);
  CHECK(batch::default_ops_per_task(5, 2u) == 3);
}

TEST_CASE("zl::batch::parse_submission")
{
  const batch::Submission s{"12", "13", 4};
  const auto back = batch::parse_submission(batch::format_submission(s), "jobs");
  CHECK(back.array_id == "12");
  CHECK(back.final_id == "13");
  CHECK(back.tasks == 4);
  CHECK_THROWS_AS(batch::parse_submission("array=12; rm -rf /\n", "jobs"), Error);
}
