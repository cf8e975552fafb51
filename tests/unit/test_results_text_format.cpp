#include "results/text/format.hpp"

#include "fixture.hpp"
#include "results_helpers.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

using namespace zl::results::text;
using zl::results::Run;
using zl::results::compare::AbOptions;
using zl::results::compare::compare;
using zl::results::compare::summarize;

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

TEST_CASE("zl::results::text::format_summary")
{
  const auto runs = fixture_runs({"tflops.log", "markers.log"});
  const auto s = summarize(runs);
  const auto text = format_summary(s, {"campaign"}, Format::text);
  CHECK(text.find("zl summary of campaign: 2 runs, 9 rows\n") == 0);
  CHECK(text.find("OP       DTYPE          ROWS  SPEEDUP    MIN    MAX  FAILED  FALLBACK\n"
                  "abs      torch.float16     5    1.100  1.100  1.100       0         0\n") != std::string::npos);
  CHECK(text.find("  BENCHMARK_CAPTURE_POISONED 1 (unique2)\n") != std::string::npos);
  CHECK(text.find("  AUTOTUNE_REPLAY_FALLBACK 1 (dropout)\n") != std::string::npos);
  const auto csv = format_summary(s, {"campaign"}, Format::csv);
  CHECK(csv.find("op,dtype,rows,geomean_speedup,min_speedup,max_speedup,failed,fallback\n"
                 "abs,torch.float16,5,1.100,1.100,1.100,0,0\n") == 0);
  CHECK(format_summary(s, {}, Format::md).find("| abs | torch.float16 | 5 | 1.100 |") != std::string::npos);
  rapidjson::Document doc;
  doc.Parse(format_summary(s, {"campaign"}, Format::json).c_str());
  REQUIRE(doc.IsObject());
  CHECK(doc["total"]["rows"].GetInt() == 9);
  CHECK(doc["markers"]["BENCHMARK_CAPTURE_POISONED"]["count"].GetInt() == 1);
  CHECK_THROWS_WITH_AS(parse_format("html"), "--format html is not known; use one of: text, md, csv, json", zl::Error);
}

TEST_CASE("zl::results::text::render")
{
  Table t{{"OP", "N"}, {false, true}, {{"abs", "1"}, {"a,b", "10"}}};
  CHECK(render(t, Format::text) == "OP    N\nabs   1\na,b  10\n");
  CHECK(render(t, Format::csv) == "OP,N\nabs,1\n\"a,b\",10\n");
  CHECK(render(t, Format::md) == "| OP | N |\n| --- | ---: |\n| abs | 1 |\n| a,b | 10 |\n");
}

TEST_CASE("zl::results::text::format_ab")
{
  std::vector<Run> a, b;
  a.push_back(zl::test::run_of(zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1, 1}})));
  b.push_back(zl::test::run_of(zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1, 1.1}}),
                               {"cuda", "core", "direct", "kernel", "shared"}));
  AbOptions o;
  o.fail_on_regression = 0.05;
  const auto r = compare(a, b, o);
  REQUIRE(r.caliber_diffs.size() == 1);
  const AbView view{"A", "B", "timer=graph", "timer=direct", true, o};
  const auto text = format_ab(r, view, Format::text);
  // --force: the difference stands above the table.
  const auto banner = text.find("CALIBER DIFFERS, compared anyway (--force):\n  timer: A=graph B=direct\n");
  CHECK(banner != std::string::npos);
  CHECK(banner < text.find("OP     PAIRS"));
  CHECK(text.find("abs        1  1.100  1.100  1.100      1.000         0       0") != std::string::npos);
  CHECK(text.find("1 pairing without samples on both sides and one round a side: no verdicts") != std::string::npos);
  CHECK(text.find("regressions (B/A above 1.050): 1\n  abs torch.float16 [torch.Size([64])]  B/A 1.100\n") !=
        std::string::npos);
  CHECK(format_ab(r, view, Format::csv).find("abs,1,1.100,1.100,1.100,0,1.000,0,0,0,0,0,0\n") != std::string::npos);
  rapidjson::Document doc;
  doc.Parse(format_ab(r, view, Format::json).c_str());
  REQUIRE(doc.IsObject());
  CHECK(doc["forced"].GetBool());
  CHECK(doc["caliber_differences"][0]["field"] == "timer");
  CHECK(doc["pairings"][0]["ratio"].GetDouble() == doctest::Approx(1.1));
  CHECK(doc["regressions"].Size() == 1);
}

TEST_CASE("zl::results::text::format_summary and format_rows: %BW and %TFLOPS against the spec peak (issue 32)")
{
  auto runs = fixture_runs({"tflops.log"});
  // Without a device the columns stay away.
  CHECK(format_summary(summarize(runs), {"r"}, Format::text).find("%TFLOPS") == std::string::npos);
  runs[0].info.device_name = "NVIDIA H100 80GB HBM3";
  const auto s = summarize(runs);
  const auto text = format_summary(s, {"r"}, Format::text);
  CAPTURE(text);
  CHECK(text.find("OP     DTYPE          ROWS  SPEEDUP    MIN    MAX  FAILED  FALLBACK  %BW  %TFLOPS\n"
                  "abs    torch.float16     5    1.100  1.100  1.100       0         0    -      1.7\n") !=
        std::string::npos);
  CHECK(text.find("peak: \"NVIDIA H100 80GB HBM3\" is the NVIDIA H100 SXM5 80GB (3350 GB/s, 989.5 TFLOPS dense "
                  "FP16/BF16 tensor, 67 FP32), from NVIDIA H100 Tensor Core GPU Datasheet, https://") !=
        std::string::npos);
  CHECK(text.find("%TFLOPS of TFLOPS / the peak of the row's dtype") != std::string::npos);
  const auto csv = format_summary(s, {"r"}, Format::csv);
  CHECK(csv.find("fallback,pct_bandwidth,pct_tflops\nabs,torch.float16,5,1.100,1.100,1.100,0,0,,1.69") !=
        std::string::npos);
  rapidjson::Document doc;
  doc.Parse(format_summary(s, {"r"}, Format::json).c_str());
  REQUIRE(doc.IsObject());
  CHECK(doc["groups"][0]["pct_bandwidth"].IsNull());
  CHECK(doc["groups"][0]["pct_tflops"].GetDouble() == doctest::Approx(100 * 16.777 / 989.5));
  CHECK(doc["peaks"][0]["sku"] == "NVIDIA H100 SXM5 80GB");
  CHECK(doc["peaks"][0]["rows"].GetInt() == 5);
  rapidjson::Document rows;
  rows.Parse(format_rows(runs, Format::json).c_str());
  REQUIRE(rows.IsObject());
  CHECK(rows["rows"][0]["pct_tflops"].GetDouble() == doctest::Approx(100 * 1073.742 / 989.5));
  CHECK(rows["rows"][0]["pct_bandwidth"].IsNull());
  // A device zl knows no peak of is named, and its rows get no share.
  runs[0].info.device_name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
  const auto mig = format_summary(summarize(runs), {"r"}, Format::text);
  CHECK(mig.find("FALLBACK\n") != std::string::npos); // no columns
  CHECK(mig.find("peak: no spec peak known for device \"NVIDIA H100 80GB HBM3 MIG 1g.10gb\"") != std::string::npos);
}
