#include "batch/slurm_campaign.hpp"

#include "batch/lock.hpp"
#include "batch/ops_status.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <boost/filesystem.hpp>
#include <doctest/doctest.h>

using namespace zl;
namespace fs = boost::filesystem;

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

TEST_CASE("zl::batch::fit_ops_per_task: the array stays within MaxArraySize")
{
  CHECK(batch::fit_ops_per_task(1000, std::nullopt, 16, std::nullopt) == 16);
  CHECK(batch::fit_ops_per_task(1000, 1u, 16, 1001u) == 1); // 1,000 tasks: ids 0..999
  CHECK(batch::fit_ops_per_task(1000, 1u, 16, std::nullopt) == 1);
  // zl's choice is raised as far as the limit needs: 2,500 ops under 1,001 -> 3 a task, 834 tasks.
  CHECK(batch::fit_ops_per_task(2500, std::nullopt, 1, 1001u) == 3);
  CHECK(batch::slice_ops(std::vector<std::string>(2500, "x"), 3).size() <= 1001);
  CHECK(batch::fit_ops_per_task(10, std::nullopt, 1, 3u) == 4);
  CHECK(batch::slice_ops(std::vector<std::string>(10, "x"), 4).size() == 3);
  // The user's choice is kept when it fits and refused, naming the option, when it does not.
  CHECK(batch::fit_ops_per_task(10, 5u, 1, 3u) == 5);
  CHECK_THROWS_WITH_AS(batch::fit_ops_per_task(10, 2u, 1, 3u),
                       doctest::Contains("--ops-per-task 2 makes 5 array tasks of 10 ops, more than this cluster's "
                                         "MaxArraySize 3 allows (scontrol show config); give --ops-per-task 4 or more"),
                       Error);
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

TEST_CASE("zl::batch::finish_campaign: the lock decides who records; a recorded campaign is not recorded again")
{
  // The final step and the submitting zl may both try (core/batch/slurm_campaign.cpp, follow).
  test::TempDir dir;
  const auto out = dir.path();
  util::make_dirs(out + "/" + batch::k_slurm_dir);
  std::vector<batch::OpStatus> rows(2);
  rows[0].op = "abs";
  rows[0].status = "ok";
  rows[1].op = "add";
  rows[1].status = "failed";
  const auto csv = batch::format_ops_status(rows);
  util::write_file_atomic(out + "/ops_status.csv", csv);
  {
    batch::CampaignLock other(out, false);
    CHECK_FALSE(batch::finish_campaign(out, false).has_value());
  }
  CHECK_FALSE(fs::exists(out + "/results.sqlite")); // nothing was touched
  // Recorded by the other: its code from ops_status.csv, which stays as it was.
  util::write_file_atomic(out + "/slurm/final.done", "zl batch: 2 ops: 1 failed, 1 ok\n");
  CHECK(batch::finish_campaign(out, false) == std::optional<int>(1));
  CHECK(batch::finish_campaign(out, true) == std::optional<int>(1));
  CHECK(util::read_file(out + "/ops_status.csv") == csv);
  rows[1].status = "ok";
  util::write_file_atomic(out + "/ops_status.csv", batch::format_ops_status(rows));
  CHECK(batch::finish_campaign(out, false) == std::optional<int>(0));
}

TEST_CASE("zl::batch::finish_campaign: Slurm is asked again unless the caller saw every task COMPLETED")
{
  // The follower hands over the states its last squeue read; sacct is only worth its round
  // trips when a task did not complete. Slurm's tools here are scripts that leave a mark.
  test::TempDir dir;
  const auto out = dir.path() + "/campaign";
  const auto bin = dir.path() + "/bin";
  util::make_dirs(out + "/" + batch::k_slurm_dir);
  util::make_dirs(bin);
  for (const std::string tool : {"sacct", "squeue"}) {
    util::write_file_atomic(bin + "/" + tool, "#!/bin/sh\necho " + tool + " >> " + dir.path() + "/asked\n");
    fs::permissions(bin + "/" + tool, fs::perms::owner_all);
  }
  const std::string old_path = std::getenv("PATH");
  ::setenv("PATH", (bin + ":" + old_path).c_str(), 1);
  std::vector<batch::OpStatus> rows(1);
  rows[0].op = "abs";
  rows[0].status = "pending";
  util::write_file_atomic(out + "/ops_status.csv", batch::format_ops_status(rows));
  util::write_file_atomic(out + "/slurm/jobs", batch::format_submission({"12", "13", 1}));
  util::write_file_atomic(out + "/slurm/task-0.ops", "abs\n");
  rows[0].status = "ok";
  util::write_file_atomic(out + "/slurm/task-0.csv", batch::format_ops_status(rows));
  slurm::TaskState seen{0, "COMPLETED", "None", "vm"};

  SUBCASE("every task COMPLETED: the states seen are recorded, nothing asked")
  {
    CHECK(batch::finish_campaign(out, false, {seen}) == std::optional<int>(0));
    CHECK_FALSE(fs::exists(dir.path() + "/asked"));
    CHECK(util::read_file(out + "/slurm/tasks.csv") == "task,slurm_state,reason,node,ops\n0,COMPLETED,None,vm,abs\n");
    const auto statuses = batch::parse_ops_status(util::read_file(out + "/ops_status.csv"), "ops_status.csv");
    REQUIRE(statuses.size() == 1);
    CHECK(statuses[0].status == "ok");
    CHECK(statuses[0].slurm_state == "COMPLETED");
  }
  SUBCASE("a task that did not complete: sacct, then squeue, are asked")
  {
    seen.state = "FAILED";
    CHECK(batch::finish_campaign(out, false, {seen}).has_value());
    CHECK(util::read_file(dir.path() + "/asked") == "sacct\nsqueue\n");
  }
  SUBCASE("nothing seen (the final step): sacct, then squeue, are asked")
  {
    CHECK(batch::finish_campaign(out, false).has_value());
    CHECK(util::read_file(dir.path() + "/asked") == "sacct\nsqueue\n");
  }
  ::setenv("PATH", old_path.c_str(), 1);
}
