#include "batch/ops_status.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::batch::parse_ops_status: rows round-trip; an op that is not a name is refused with its line")
{
  batch::OpStatus s;
  s.op = "abs";
  s.status = results::OpState::ok;
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

TEST_CASE("zl::batch::parse_ops_status: slurm_state round-trips; the header of the zl before it still parses")
{
  batch::OpStatus s;
  s.op = "mm";
  s.status = results::OpState::timeout;
  s.rows = 0;
  s.slurm_state = "TIMEOUT";
  const auto text = batch::format_ops_status({s});
  CHECK(text.rfind(",replay_fallbacks,slurm_state\n", text.find('\n')) != std::string::npos);
  const auto back = batch::parse_ops_status(text, "ops_status.csv");
  REQUIRE(back.size() == 1);
  CHECK(back[0].slurm_state == "TIMEOUT");

  // What a campaign of the earlier zl left: 14 columns, no slurm_state.
  const std::string earlier = "op,status,exit_code,rows,backend,device_index,device_uuid,timer,level,duration_s,"
                              "run_dir,direct_fallbacks,poisoned,replay_fallbacks\n"
                              "abs,ok,0,9,cuda,0,GPU-1,direct,core,1.500,/c/abs,0,0,0\n"
                              "sum,pending,,0,,,,,,,,0,0,0\n";
  const auto old = batch::parse_ops_status(earlier, "old/ops_status.csv");
  REQUIRE(old.size() == 2);
  CHECK(old[0].rows == 9);
  CHECK(old[0].slurm_state.empty());
  CHECK(old[1].status == results::OpState::pending);
  // Rewritten, it has the column (empty).
  CHECK(batch::format_ops_status(old).find("abs,ok,0,9,cuda,0,GPU-1,direct,core,1.500,/c/abs,0,0,0,\n") !=
        std::string::npos);
  // A row of 15 fields under the earlier header does not fit it.
  CHECK_THROWS_WITH_AS(batch::parse_ops_status(earlier + "mm,ok,0,1,cuda,0,G,direct,core,1,/c/mm,0,0,0,X\n", "o.csv"),
                       doctest::Contains("o.csv:4: 15 fields where 14 belong"), Error);
  CHECK_THROWS_WITH_AS(batch::parse_ops_status("op,status\n", "x.csv"),
                       doctest::Contains("x.csv:1: not an ops_status.csv of this zl"), Error);
}

TEST_CASE("zl::batch::parse_ops_status: a status that is no op state is refused with its line")
{
  const std::string header = batch::format_ops_status({});
  for (const char* bad : {"OK", "running", "no_tests", "", "ok "}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(batch::parse_ops_status(header + "abs," + bad + ",0,9,cuda,0,G,direct,core,1,/c/abs,0,0,0,\n",
                                                 "c/ops_status.csv"),
                         doctest::Contains("c/ops_status.csv:2: '"), Error);
  }
  CHECK_THROWS_WITH_AS(batch::parse_ops_status(header + "abs,done,0,9,cuda,0,G,direct,core,1,/c/abs,0,0,0,\n", "c.csv"),
                       doctest::Contains("c.csv:2: 'done' is not an op status (one of: ok, unsupported, skipped"),
                       Error);
}

TEST_CASE("zl::batch::status_from_exit: what the identity recorded tells declined from failed")
{
  using results::OpState;
  CHECK(batch::status_from_exit(1, 0, false, false, OpState::unsupported) == OpState::unsupported);
  CHECK(batch::status_from_exit(0, 0, false, false, OpState::skipped) == OpState::skipped);
  CHECK(batch::status_from_exit(1, 4, false, false, OpState::ok) == OpState::ok); // only a dtype was refused
  CHECK(batch::status_from_exit(1, 0, false, false, OpState::failed) == OpState::failed);
  CHECK(batch::status_from_exit(1, 0, false, false) == OpState::failed);
  CHECK(batch::status_from_exit(0, 0, false, false, OpState::ok) == OpState::no_rows);
  CHECK(batch::status_from_exit(1, 0, true, false, OpState::unsupported) == OpState::timeout);
  CHECK(batch::status_from_exit(130, 0, false, true, OpState::unsupported) == OpState::interrupted);
  CHECK(batch::status_from_exit(130, 0, false, false) == OpState::interrupted);
  CHECK(batch::status_from_exit(3, 0, false, false, OpState::unsupported) == OpState::preflight_failed);
  CHECK(batch::status_from_exit(14, 0, false, false) == OpState::crashed);
  CHECK(batch::status_from_exit(139, 0, false, false) == OpState::crashed);
}
