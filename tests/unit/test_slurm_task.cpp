#include "slurm/task.hpp"

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

TEST_CASE("zl::slurm::finish_campaign: the lock decides who records; a recorded campaign is not recorded again")
{
  // The final step and the submitting zl may both try (core/slurm/follow.cpp).
  test::TempDir dir;
  const auto& out = dir.path();
  util::make_dirs(out + "/" + slurm::k_slurm_dir);
  std::vector<batch::OpStatus> rows(2);
  rows[0].op = "abs";
  rows[0].status = results::OpState::ok;
  rows[1].op = "add";
  rows[1].status = results::OpState::failed;
  const auto csv = batch::format_ops_status(rows);
  util::write_file_atomic(out + "/ops_status.csv", csv);
  {
    batch::CampaignLock other(out, false);
    CHECK_FALSE(slurm::finish_campaign(out, false).has_value());
  }
  CHECK_FALSE(fs::exists(out + "/results.sqlite")); // nothing was touched
  // Recorded by the other: its code from ops_status.csv, which stays as it was.
  util::write_file_atomic(out + "/slurm/final.done", "zl batch: 2 ops: 1 failed, 1 ok\n");
  CHECK(slurm::finish_campaign(out, false) == std::optional<int>(1));
  CHECK(slurm::finish_campaign(out, true) == std::optional<int>(1));
  CHECK(util::read_file(out + "/ops_status.csv") == csv);
  rows[1].status = results::OpState::ok;
  util::write_file_atomic(out + "/ops_status.csv", batch::format_ops_status(rows));
  CHECK(slurm::finish_campaign(out, false) == std::optional<int>(0));
}

TEST_CASE("zl::slurm::finish_campaign: Slurm is asked again unless the caller saw every task COMPLETED")
{
  // The follower hands over the states its last squeue read; sacct is only worth its round
  // trips when a task did not complete. Slurm's tools here are scripts that leave a mark.
  test::TempDir dir;
  const auto out = dir.path() + "/campaign";
  const auto bin = dir.path() + "/bin";
  util::make_dirs(out + "/" + slurm::k_slurm_dir);
  util::make_dirs(bin);
  for (const std::string tool : {"sacct", "squeue"}) {
    util::write_file_atomic(bin + "/" + tool, "#!/bin/sh\necho " + tool + " >> " + dir.path() + "/asked\n");
    fs::permissions(bin + "/" + tool, fs::perms::owner_all);
  }
  const std::string old_path = std::getenv("PATH");
  ::setenv("PATH", (bin + ":" + old_path).c_str(), 1);
  std::vector<batch::OpStatus> rows(1);
  rows[0].op = "abs";
  rows[0].status = results::OpState::pending;
  util::write_file_atomic(out + "/ops_status.csv", batch::format_ops_status(rows));
  util::write_file_atomic(out + "/slurm/jobs", slurm::format_submission({"12", "13", 1}));
  util::write_file_atomic(out + "/slurm/task-0.ops", "abs\n");
  rows[0].status = results::OpState::ok;
  util::write_file_atomic(out + "/slurm/task-0.csv", batch::format_ops_status(rows));
  slurm::TaskState seen{0, "COMPLETED", "None", "vm"};

  SUBCASE("every task COMPLETED: the states seen are recorded, nothing asked")
  {
    CHECK(slurm::finish_campaign(out, false, {seen}) == std::optional<int>(0));
    CHECK_FALSE(fs::exists(dir.path() + "/asked"));
    CHECK(util::read_file(out + "/slurm/tasks.csv") == "task,slurm_state,reason,node,ops\n0,COMPLETED,None,vm,abs\n");
    const auto statuses = batch::parse_ops_status(util::read_file(out + "/ops_status.csv"), "ops_status.csv");
    REQUIRE(statuses.size() == 1);
    CHECK(statuses[0].status == results::OpState::ok);
    CHECK(statuses[0].slurm_state == "COMPLETED");
  }
  SUBCASE("a task that did not complete: sacct, then squeue, are asked")
  {
    seen.state = "FAILED";
    CHECK(slurm::finish_campaign(out, false, {seen}).has_value());
    CHECK(util::read_file(dir.path() + "/asked") == "sacct\nsqueue\n");
  }
  SUBCASE("nothing seen (the final step): sacct, then squeue, are asked")
  {
    CHECK(slurm::finish_campaign(out, false).has_value());
    CHECK(util::read_file(dir.path() + "/asked") == "sacct\nsqueue\n");
  }
  ::setenv("PATH", old_path.c_str(), 1);
}
