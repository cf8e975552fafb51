#include "slurm/state.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl;

// The fixtures are outputs of the real local Slurm (tests/fixtures/slurm/README.md).
TEST_CASE("zl::slurm::parse_squeue: a throttled array pending, then ended")
{
  const auto pending = slurm::parse_squeue(test::read_fixture("slurm/squeue_running.txt"), "15");
  REQUIRE(pending.size() == 3);
  CHECK(pending[0].task == 0u);
  CHECK(pending[0].state == "PENDING");
  CHECK(pending[0].node.empty());
  const auto done = slurm::parse_squeue(test::read_fixture("slurm/squeue_done.txt"), "15");
  REQUIRE(done.size() == 3);
  CHECK(done[2].task == 1u);
  CHECK(done[2].state == "FAILED");
  CHECK(done[2].reason == "NonZeroExitCode");
  CHECK(done[2].node == "vm");
  CHECK(slurm::parse_squeue(test::read_fixture("slurm/squeue_done.txt"), "16").empty()); // another job's
  // The folded pending remainder of a throttled array has no task id.
  const auto folded = slurm::parse_squeue("15_[3-9%1]|PENDING|JobArrayTaskLimit|\n", "15");
  REQUIRE(folded.size() == 1);
  CHECK(!folded[0].task);
}

TEST_CASE("zl::slurm::parse_scontrol: one record per task")
{
  const auto done = slurm::parse_scontrol(test::read_fixture("slurm/scontrol_done.txt"), "15");
  REQUIRE(done.size() == 3);
  for (const auto& t : done) {
    REQUIRE(t.task);
    CHECK(t.state == (*t.task == 1 ? "FAILED" : "COMPLETED"));
    CHECK(t.node == "vm");
  }
  const auto running = slurm::parse_scontrol(test::read_fixture("slurm/scontrol_running.txt"), "15");
  REQUIRE(!running.empty());
  CHECK(running[0].state == "PENDING");
  CHECK(slurm::parse_scontrol("", "15").empty());
}

TEST_CASE("zl::slurm::parse_max_array_size")
{
  const std::string config = "Configuration data as of 2026-12-03T09:00:00\nMaxArraySize            = 1001\n"
                             "MaxJobCount             = 10000\n";
  CHECK(slurm::parse_max_array_size(config) == std::optional<size_t>(1001));
  CHECK_FALSE(slurm::parse_max_array_size("MaxJobCount = 10000\n"));
  CHECK_FALSE(slurm::parse_max_array_size("MaxArraySize = lots\n"));
}

TEST_CASE("zl::slurm::is_final")
{
  for (const char* s : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", ""}) {
    CHECK_FALSE(slurm::is_final(s));
  }
  for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED"}) {
    CHECK(slurm::is_final(s));
  }
}

TEST_CASE("zl::slurm::op_status: Slurm's end of a task onto the local statuses")
{
  using zl::results::OpState;
  // What zl recorded as ended stands.
  CHECK(slurm::op_status("TIMEOUT", OpState::ok, true) == OpState::ok);
  CHECK(slurm::op_status("CANCELLED", OpState::failed, true) == OpState::failed);
  // The op running when the task ended.
  CHECK(slurm::op_status("TIMEOUT", OpState::interrupted, true) == OpState::timeout);
  CHECK(slurm::op_status("TIMEOUT", OpState::pending, true) == OpState::timeout);
  CHECK(slurm::op_status("NODE_FAIL", OpState::pending, true) == OpState::crashed);
  CHECK(slurm::op_status("OUT_OF_MEMORY", OpState::pending, true) == OpState::crashed);
  CHECK(slurm::op_status("CANCELLED", OpState::pending, true) == OpState::interrupted);
  CHECK(slurm::op_status("CANCELLED", OpState::interrupted, true) == OpState::interrupted);
  CHECK(slurm::op_status("", OpState::pending, true) == OpState::crashed);
  // An op its task never reached.
  CHECK(slurm::op_status("CANCELLED", OpState::pending, false) == OpState::pending);
  CHECK(slurm::op_status("TIMEOUT", OpState::pending, false) == OpState::pending);
  CHECK(slurm::op_status("", OpState::pending, false) == OpState::pending);
}
