#include "report/data.hpp"

#include "results_helpers.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

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
