#include "slurm/campaign.hpp"

#include "batch/lock.hpp"
#include "batch/ops_status.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <boost/filesystem.hpp>
#include <doctest/doctest.h>

using namespace zl;
namespace fs = boost::filesystem;

TEST_CASE("zl::slurm::slice_ops: round robin over the longest-first order")
{
  const std::vector<std::string> ops = {"a", "b", "c", "d", "e"};
  const auto two = slurm::slice_ops(ops, 2);
  REQUIRE(two.size() == 3);
  CHECK(two[0] == std::vector<std::string>{"a", "d"});
  CHECK(two[1] == std::vector<std::string>{"b", "e"});
  CHECK(two[2] == std::vector<std::string>{"c"});
  CHECK(slurm::slice_ops(ops, 1).size() == 5);
  CHECK(slurm::slice_ops(ops, 100).size() == 1);
  CHECK(slurm::slice_ops(ops, 0).size() == 5); // at least one op a task
  CHECK(slurm::slice_ops({}, 3).empty());
}

TEST_CASE("zl::slurm::default_ops_per_task")
{
  CHECK(slurm::default_ops_per_task(5, std::nullopt) == 1);
  CHECK(slurm::default_ops_per_task(1000, std::nullopt) == 16);
  CHECK(slurm::default_ops_per_task(1000, 8u) == 125);
  CHECK(slurm::default_ops_per_task(5, 2u) == 3);
}

TEST_CASE("zl::slurm::fit_ops_per_task: the array stays within MaxArraySize")
{
  CHECK(slurm::fit_ops_per_task(1000, std::nullopt, 16, std::nullopt) == 16);
  CHECK(slurm::fit_ops_per_task(1000, 1u, 16, 1001u) == 1); // 1,000 tasks: ids 0..999
  CHECK(slurm::fit_ops_per_task(1000, 1u, 16, std::nullopt) == 1);
  // zl's choice is raised as far as the limit needs: 2,500 ops under 1,001 -> 3 a task, 834 tasks.
  CHECK(slurm::fit_ops_per_task(2500, std::nullopt, 1, 1001u) == 3);
  CHECK(slurm::slice_ops(std::vector<std::string>(2500, "x"), 3).size() <= 1001);
  CHECK(slurm::fit_ops_per_task(10, std::nullopt, 1, 3u) == 4);
  CHECK(slurm::slice_ops(std::vector<std::string>(10, "x"), 4).size() == 3);
  // The user's choice is kept when it fits and refused, naming the option, when it does not.
  CHECK(slurm::fit_ops_per_task(10, 5u, 1, 3u) == 5);
  CHECK_THROWS_WITH_AS(slurm::fit_ops_per_task(10, 2u, 1, 3u),
                       doctest::Contains("--ops-per-task 2 makes 5 array tasks of 10 ops, more than this cluster's "
                                         "MaxArraySize 3 allows (scontrol show config); give --ops-per-task 4 or more"),
                       Error);
}

TEST_CASE("zl::slurm::parse_submission")
{
  const slurm::Submission s{"12", "13", 4};
  const auto back = slurm::parse_submission(slurm::format_submission(s), "jobs");
  CHECK(back.array_id == "12");
  CHECK(back.final_id == "13");
  CHECK(back.tasks == 4);
  CHECK_THROWS_AS(slurm::parse_submission("array=12; rm -rf /\n", "jobs"), Error);
}
