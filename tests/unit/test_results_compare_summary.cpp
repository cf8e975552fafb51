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

namespace {

// One FlagGems table with its extra columns (docs/flaggems-facts.md §1): TFLOPS, or the GBPS pair
// when gbps; each row's figure is that column's value (torch's GBPS: nine tenths of it).
std::string extra_table(const std::string& op, const std::string& dtype, bool gbps, const std::vector<double>& figures)
{
  std::string out = fmt::format("\nOperator: {}  Performance Test (dtype={}, mode=kernel,level=core)\n", op, dtype);
  std::string header =
      fmt::format("{:<10} {:>20} {:>20} {:>20}", "Status", "Torch Latency (ms)", "Gems Latency (ms)", "Gems Speedup");
  header += gbps ? fmt::format(" {:>20} {:>20}", "Torch GBPS ", "Gems GBPS ") : fmt::format(" {:>20}", "TFLOPS");
  header += fmt::format(" {:>20}", "Size Detail");
  out += header + "\n" + std::string(header.size() + 1, '-') + "\n";
  int i = 0;
  for (const double v : figures) {
    out += fmt::format("{:<10}{:>20.6f}{:>20.6f}{:>20.3f}", "SUCCESS", 0.0011, 0.001, 1.1);
    out += gbps ? fmt::format("{:>20.3f}{:>20.3f}", v * 0.9, v) : fmt::format("{:>20.3f}", v);
    out += fmt::format("          [torch.Size([{}])]\n", ++i);
  }
  return out + "\n";
}

Run on_device(Run run, const std::string& device_name)
{
  run.info.device_name = device_name;
  return run;
}

} // namespace

TEST_CASE("zl::results::compare::summarize: shares of the device's spec peak (issue 32)")
{
  std::vector<Run> runs;
  // abs float16 TFLOPS 1073.742, 0.004, 16.777, 16.777, 1073.742: median 16.777 of 989.5.
  runs.push_back(on_device(std::move(fixture_runs({"tflops.log"})[0]), "NVIDIA H100 80GB HBM3"));
  runs.push_back(on_device(zl::test::run_of(extra_table("sum", "torch.float32", true, {1675, 2680}) +
                                            extra_table("mm", "torch.float32", false, {33.5}) +
                                            extra_table("mm", "torch.float64", false, {10})),
                           "NVIDIA H100 80GB HBM3"));
  runs.push_back(on_device(std::move(fixture_runs({"tflops.log"})[0]), "NVIDIA A100-SXM4-80GB MIG 1g.10gb"));
  runs.push_back(std::move(fixture_runs({"tflops.log"})[0])); // a bare log: no device
  const auto s = summarize(runs);
  std::map<std::string, GroupSummary> by;
  for (const auto& g : s.groups) {
    by[g.op + " " + g.dtype] = g;
  }
  CHECK(by["abs torch.float16"].rows == 15);
  CHECK(by["abs torch.float16"].pct_tflops == doctest::Approx(100 * 16.777 / 989.5)); // the MIG's rows: none
  CHECK_FALSE(has_value(by["abs torch.float16"].pct_bandwidth));
  CHECK(by["sum torch.float32"].pct_bandwidth == doctest::Approx(65)); // 50% and 80% of 3350 GB/s
  CHECK_FALSE(has_value(by["sum torch.float32"].pct_tflops));
  CHECK(by["mm torch.float32"].pct_tflops == doctest::Approx(50)); // FP32's 67, not the tensor peak
  CHECK_FALSE(has_value(by["mm torch.float64"].pct_tflops));       // no FP64 peak in the table
  CHECK(s.total.pct_bandwidth == doctest::Approx(65));
  // 0.0004, 1.70, 1.70, 50; the two rows at 108.5% of the spec are no share of it: left out, named.
  CHECK(s.total.pct_tflops == doctest::Approx(100 * 16.777 / 989.5));
  CHECK(s.over_peak.rows == 2);
  CHECK(s.over_peak.first == "abs torch.float16 [torch.Size([1073741824])]: 109%");
  REQUIRE(s.devices.size() == 2);
  CHECK(s.devices[0].device_name == "NVIDIA H100 80GB HBM3");
  REQUIRE(s.devices[0].peak);
  CHECK(s.devices[0].peak->sku == "NVIDIA H100 SXM5 80GB");
  CHECK(s.devices[0].rows == 5 + 2 + 1 + 1);
  CHECK(s.devices[1].device_name == "NVIDIA A100-SXM4-80GB MIG 1g.10gb");
  CHECK_FALSE(s.devices[1].peak);
  CHECK(s.devices[1].rows == 5);
}

TEST_CASE("zl::results::compare::peak_share")
{
  const auto peak = zl::devices::spec_peak("AMD Instinct MI300X");
  const RowLabels bf16{"mm", "torch.bfloat16", "", ""}, i32{"add", "torch.int32", "", ""};
  Row r;
  r.labels = &bf16;
  r.success = true;
  r.tflops = 653.7;
  r.gems_gbps = 2650;
  CHECK(peak_share(r, peak).pct_tflops == doctest::Approx(50));
  CHECK(peak_share(r, peak).pct_bandwidth == doctest::Approx(50));
  CHECK_FALSE(has_value(peak_share(r, std::nullopt).pct_tflops)); // no peak: no share
  r.labels = &i32;
  CHECK_FALSE(has_value(peak_share(r, peak).pct_tflops)); // an integer dtype has no FLOPS peak here
  CHECK(peak_share(r, peak).pct_bandwidth == doctest::Approx(50));
  r.success = false;
  CHECK_FALSE(has_value(peak_share(r, peak).pct_bandwidth)); // a failed row's figures are not kept
}

TEST_CASE("zl::results::compare::measured_peak: the copy's bandwidth, the GEMM's throughput for its dtype")
{
  zl::calibrate::Calibration c;
  c.copy_gbps = 3000, c.gemm_tflops = 700, c.gemm_dtype = "float16";
  auto p = zl::results::compare::measured_peak(c);
  CHECK(p.bandwidth_gbps == 3000);
  CHECK(p.fp16_tflops == 700);
  CHECK_FALSE(p.fp32_tflops.has_value());
  c.gemm_dtype = "float32";
  p = zl::results::compare::measured_peak(c);
  CHECK(p.fp16_tflops == 0); // no float16 figure: float16 rows get no measured share
  CHECK(p.fp32_tflops == 700.0);
}

TEST_CASE("zl::results::compare::SummaryFold: run by run, the summary summarize gives")
{
  const auto a = zl::test::run_of(zl::test::table("abs", "torch.float16", {{"[1]", 2, 1}, {"[2]", 3, 0}}) +
                                  zl::test::table("mm", "torch.float32", {{"[3]", 1, 2}}));
  const auto b = zl::test::run_of("ZL_TIMER op=abs timer=graph node=t.py::test_abs\n" +
                                  zl::test::table("abs", "torch.float16", {{"[1]", 4, 1}}));
  compare::SummaryFold fold;
  for (const auto* run : {&a, &b}) {
    fold.begin(*run);
    for (const auto& r : run->rows) {
      fold.row(*run, r);
    }
    for (const auto& m : run->markers) {
      fold.marker(*run, m);
    }
    fold.end(*run);
  }
  const auto folded = fold.finish();
  const auto whole = compare::summarize(std::vector<const Run*>{&a, &b});
  CHECK(folded.runs == 2);
  REQUIRE(folded.groups.size() == whole.groups.size());
  for (std::size_t i = 0; i < whole.groups.size(); ++i) {
    CHECK(folded.groups[i].op == whole.groups[i].op);
    CHECK(folded.groups[i].rows == whole.groups[i].rows);
    CHECK(folded.groups[i].failed == whole.groups[i].failed);
    CHECK(folded.groups[i].geomean_speedup == whole.groups[i].geomean_speedup);
  }
  CHECK(folded.total.rows == 4);
  CHECK(folded.markers == whole.markers);
}
