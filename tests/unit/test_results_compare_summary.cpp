#include "results/compare/summary.hpp"

#include "fixture.hpp"
#include "results_helpers.hpp"

#include <doctest/doctest.h>

using namespace zl::results;
using namespace zl::results::compare;

namespace {

std::vector<Run> fixture_runs(std::initializer_list<const char*> names)
{
  std::vector<Run> runs;
  for (const char* name : names) {
    runs.push_back(zl::test::run_of(zl::test::read_fixture(std::string("flaggems_output/") + name)));
  }
  return runs;
}

} // namespace

TEST_CASE("zl::results::compare::summarize")
{
  const auto runs = fixture_runs({"tflops.log", "failed_rows.log", "markers.log", "failure_line.log"});
  const auto s = summarize(runs);
  CHECK(s.runs == 4);
  std::map<std::string, GroupSummary> by;
  for (const auto& g : s.groups) {
    by[g.op + " " + g.dtype] = g;
  }
  const auto& abs = by["abs torch.float16"];
  CHECK(abs.rows == 5);
  CHECK(abs.measured == 5);
  CHECK(abs.geomean_speedup == doctest::Approx(1.1));
  CHECK(abs.failed == 0);
  const auto& addmm = by["addmm torch.bfloat16"];
  CHECK(addmm.rows == 5);
  CHECK(addmm.failed == 1);
  CHECK(addmm.measured == 3); // the N/A-latency row has no speedup
  CHECK(addmm.min_speedup == doctest::Approx(1.25));
  CHECK(addmm.max_speedup == doctest::Approx(2.0));
  CHECK(by["dropout torch.float16"].fallback == 1);
  CHECK(by["unique2 "].failed == 2); // two logs fail it, neither with a dtype
  CHECK(by["gelu "].failed == 1);
  CHECK(by["gelu torch.float16"].failed == 0);
  CHECK(s.total.rows == 5 + 5 + 4 + 5);
  CHECK(s.total.failed == 1 + 1 + 4);
  CHECK(s.total.fallback == 1);
  CHECK(s.markers.at("BENCHMARK_CAPTURE_POISONED") == 1);
  CHECK(s.marker_ops.at("BENCHMARK_CAPTURE_POISONED") == std::set<std::string>{"unique2"});
  CHECK(s.markers.at("AUTOTUNE_REPLAY_FALLBACK") == 1);
  CHECK(s.markers.count("ZL_TIMER") == 0);
  CHECK(s.calibers.at("backend=cuda level=core timer=graph mode=kernel tuner_cache=shared") == 4);
}

TEST_CASE("zl::results::compare::summarize: an op its campaign did not call ok (issue 10.18)")
{
  auto runs = fixture_runs({"tflops.log"});
  runs[0].info.campaign_status = OpState::timeout; // the run of op pow, whose tables name abs
  const auto s =
      summarize(runs, {{"c", "pow", OpState::timeout}, {"c", "mm", OpState::ok}, {"d", "mm", OpState::crashed}});
  std::map<std::string, GroupSummary> by;
  for (const auto& g : s.groups) {
    by[g.op + " " + g.dtype] = g;
  }
  CHECK(by["abs torch.float16"].rows == 5);
  CHECK(by["abs torch.float16"].failed == 0);
  CHECK(by["abs torch.float16"].status == "timeout");
  CHECK(by["pow "].rows == 0); // the op's own failure is not a row
  CHECK(by["pow "].failed == 1);
  CHECK(by["pow "].status == "timeout");
  CHECK(by["mm "].status == "crashed"); // not ok in one campaign: not ok
  CHECK(s.total.failed == 2);
  CHECK(s.total.rows == 5);
  CHECK(status_cell({OpState::ok}) == "ok");
  CHECK(status_cell({OpState::ok, OpState::timeout, OpState::interrupted}) == "interrupted,timeout"); // by name
  CHECK(status_cell({}).empty());
}
