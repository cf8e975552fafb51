#include "report/data.hpp"

#include "results_helpers.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cmath>

using namespace zl::report;
using zl::test::run_of;
using zl::test::table;

TEST_CASE("zl::report::write_campaign")
{
  std::vector<zl::results::Run> runs;
  runs.push_back(
      run_of(table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.5}, {"[torch.Size([128])]", 2.0, 0}}) +
             table("abs", "torch.float32", {{"[torch.Size([64])]", 1.0, 2.0}})));
  runs.push_back(run_of(table("add", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.25}}),
                        {"cuda", "core", "direct", "kernel", "shared"}));
  runs[0].info.op = "abs", runs[1].info.op = "add";
  std::size_t cut = 0;
  Json j;
  using zl::results::OpState;
  write_campaign(j, runs, {{"/c", "abs", OpState::ok}, {"/c", "add", OpState::ok}, {"/c", "mm", OpState::crashed}},
                 &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  // Two calibers: summarized apart, never together.
  REQUIRE(d["calibers"].Size() == 2);
  const auto& first = d["calibers"][0];
  // zl summary's groups: abs float16 (one failed row), abs float32, and mm (crashed, no run): with
  // the first caliber.
  REQUIRE(first["groups"].Size() == 3);
  CHECK(std::string(first["groups"][0][0].GetString()) == "abs");
  CHECK(first["groups"][0][4].GetDouble() == doctest::Approx(2.0));
  CHECK(first["groups"][0][7].GetInt() == 1);
  CHECK(std::string(first["groups"][2][0].GetString()) == "mm");
  CHECK(first["groups"][2][4].IsNull());
  CHECK(d["calibers"][1]["groups"].Size() == 1);
  // Latency against size: measured rows only.
  CHECK(first["series"][0][2].Size() == 1);
  CHECK(first["series"][0][4][0].GetDouble() == doctest::Approx(0.5));
  // The failed row, with its Size Detail.
  REQUIRE(first["issues"].Size() == 1);
  CHECK(std::string(first["issues"][0][0].GetString()) == "failed");
  CHECK(std::string(first["issues"][0][3].GetString()) == "[torch.Size([128])]");
  REQUIRE(d["ops_status"].Size() == 1);
  CHECK(std::string(d["ops_status"][0][1].GetString()) == "crashed");
  CHECK(d["ops_status"][0][3].IsFalse()); // not settled: a failure on the page
  CHECK(cut == 0);
}

TEST_CASE("zl::report::element_count")
{
  CHECK(element_count("[torch.Size([64, 64])]") == 4096);
  CHECK(element_count("[1073741824]") == 1073741824.0);
  // The first list of integers only: the first tensor's, past the lists around it.
  CHECK(element_count("([torch.Size([64, 64]), 1], {'out': torch.Size([])})") == 4096);
  CHECK(element_count(R"([[[64,64],1],{"out":[]}])") == 4096); // the record log's spelling
  CHECK(element_count("[(1024, 1024), 1]") == 1048576);
  CHECK(element_count("((64,), 1)") == 64);
  CHECK(element_count("[torch.Size([]), torch.Size([8])]") == 8);
  CHECK(element_count("[torch.Size([4, 'x']), [3]]") == 3);
  CHECK(element_count("[" + std::string(400, '9') + "], [5]") == 5);
  // None: no list, a list of other things, a list never closed.
  const std::string digits = "[" + std::string(400, '9') + "]"; // hostile: never a crash
  for (const auto* none : {"", "{'dim': 1}", "[0.5, 2]", "[-1, 4]", "(64, 64", "abc", digits.c_str()}) {
    CAPTURE(none);
    CHECK(std::isnan(element_count(none)));
  }
}

TEST_CASE("zl::report::by_element_count")
{
  // Counts first, ascending, ties in the order given; shapes without a count after, in theirs.
  const std::vector<std::string_view> shapes{"[1073741824]", "[64, 64]", "none", "[8]", "[4096]", "also none"};
  CHECK(by_element_count(shapes) == std::vector<std::size_t>{3, 1, 4, 0, 2, 5});
  CHECK(by_element_count({}).empty());
}

namespace {

using zl::results::Run;
using zl::results::SampleSet;
using zl::results::SampleStop;

// Gives row k of run the samples ms on one side, stopped as said.
void keep_samples(Run& run, std::size_t k, bool gems, const std::vector<double>& ms, SampleStop stop)
{
  SampleSet s;
  s.ms.assign(ms.begin(), ms.end());
  s.stop = stop;
  s.stats = zl::results::describe_samples(ms);
  run.samples.push_back(std::move(s));
  (gems ? run.rows[k].gems_samples : run.rows[k].torch_samples) = static_cast<std::int32_t>(run.samples.size() - 1);
}

std::vector<double> evenly(double from, double to, int n)
{
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(from + (to - from) * i / (n - 1));
  }
  return out;
}

} // namespace

TEST_CASE("zl::report::write_campaign: sizes by element count, samples as boxes, unstable rows")
{
  // Two rounds of one op; sizes printed in no order, one without a count.
  const auto log = table("abs", "torch.float16",
                         {{"[torch.Size([1073741824])]", 1.0, 0.5},
                          {"[torch.Size([64, 64])]", 1.0, 0.25},
                          {"[torch.Size([])]", 1.0, 0.2},
                          {"[torch.Size([8])]", 1.0, 0.1}});
  std::vector<Run> runs;
  runs.push_back(run_of(log));
  runs.push_back(run_of(log));
  keep_samples(runs[0], 1, true, evenly(0.25, 0.259, 10), SampleStop::converged); // steady
  keep_samples(runs[1], 1, true, evenly(0.2, 0.4, 20), SampleStop::max_samples);  // noisy, more samples
  keep_samples(runs[1], 0, false, {1.0, 1.0, 1.0}, SampleStop::max_time);         // too few
  std::size_t cut = 0;
  Json j;
  write_campaign(j, runs, {}, &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  REQUIRE(d["calibers"].Size() == 1);
  const auto& c = d["calibers"][0];
  REQUIRE(c["series"].Size() == 1);
  const auto& s = c["series"][0];
  REQUIRE(s.Size() == 8);
  std::vector<std::string> shapes;
  for (const auto& x : s[2].GetArray()) {
    shapes.emplace_back(x.GetString());
  }
  CHECK(shapes == std::vector<std::string>{"[torch.Size([8])]", "[torch.Size([64, 64])]", "[torch.Size([1073741824])]",
                                           "[torch.Size([])]"});
  CHECK(s[4][0].GetDouble() == doctest::Approx(0.1)); // the medians follow their shapes
  CHECK(s[4][2].GetDouble() == doctest::Approx(0.5));
  CHECK(s[5][0].GetDouble() == 8);
  CHECK(s[5][1].GetDouble() == 4096);
  CHECK(s[5][2].GetDouble() == 1073741824.0);
  CHECK(s[5][3].IsNull());
  // Boxes: [min, q1, median, q3, max, n, noise, warnings] of the round with the most samples.
  const auto& gems = s[7];
  CHECK(gems[0].IsNull());
  REQUIRE(gems[1].IsArray());
  CHECK(gems[1][0].GetDouble() == doctest::Approx(0.2));
  CHECK(gems[1][2].GetDouble() == doctest::Approx(0.3));
  CHECK(gems[1][4].GetDouble() == doctest::Approx(0.4));
  CHECK(gems[1][5].GetUint() == 20);
  CHECK(gems[1][6].GetDouble() == doctest::Approx(0.1 / 0.3));
  CHECK(std::string(gems[1][7].GetString()) == "noisy");
  CHECK(s[6][2][5].GetUint() == 3); // torch's, of the largest size
  CHECK(s[6][1].IsNull());
  // The rows whose samples warn: [op, dtype, shape, side, warnings, noise, n, stop, where].
  const auto& unstable = c["unstable"];
  REQUIRE(unstable.Size() == 2);
  CHECK(std::string(unstable[0][2].GetString()) == "[torch.Size([1073741824])]");
  CHECK(std::string(unstable[0][3].GetString()) == "torch");
  CHECK(std::string(unstable[0][4].GetString()) == "few");
  CHECK(unstable[0][6].GetUint() == 3);
  CHECK(std::string(unstable[0][7].GetString()) == "max_time");
  CHECK(std::string(unstable[1][3].GetString()) == "FlagGems");
  CHECK(std::string(unstable[1][4].GetString()) == "noisy");
  CHECK(unstable[1][5].GetDouble() == doctest::Approx(0.1 / 0.3));
  CHECK(std::string(unstable[1][7].GetString()) == "max_samples");
  CHECK(std::string(unstable[1][8].GetString()) == "run.log:" + std::to_string(runs[1].rows[1].line));
  // Three rows kept samples; two stopped at a cap, one at each.
  const auto& sampling = c["sampling"];
  CHECK(sampling["rows"].GetUint() == 3);
  CHECK(sampling["capped"].GetUint() == 2);
  CHECK(sampling["max_samples"].GetUint() == 1);
  CHECK(sampling["max_time"].GetUint() == 1);
}

TEST_CASE("zl::report::write_campaign: a failure's message is kept whole")
{
  // Tracebacks run past the 512 bytes of a label: the failures table shows them entire.
  const std::string message(3000, 'm');
  auto run = run_of("\x1b[31mFAILED\x1b[0m: Operator=abs dtype=torch.float16 err=<<<" + message + ">>>\n");
  std::vector<Run> runs;
  runs.push_back(std::move(run));
  std::size_t cut = 0;
  Json j;
  write_campaign(j, runs, {}, &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  const auto& issues = d["calibers"][0]["issues"];
  REQUIRE(issues.Size() == 1);
  CHECK(std::string(issues[0][4].GetString()) == message);
  CHECK(cut == 0);
  CHECK(d["calibers"][0]["sampling"]["rows"].GetUint() == 0);
}
