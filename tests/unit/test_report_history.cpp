#include "report/data.hpp"

#include "results/store/store.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

using namespace zl::report;

TEST_CASE("zl::report::campaign_of")
{
  CHECK(campaign_of("/runs/night-1/abs") == "/runs/night-1");
  CHECK(campaign_of("/runs/night-1/round-3/abs") == "/runs/night-1");
  CHECK(campaign_of("/runs/night-1/rounds/abs") == "/runs/night-1/rounds");
}

TEST_CASE("zl::report::write_history")
{
  zl::test::TempDir dir;
  zl::results::store::Store store(dir.path() + "/store.sqlite");
  // Eight nights of five rounds each, the last four 30% slower; and a night of another caliber.
  auto night = [&](int n, double scale, const zl::results::Caliber& caliber) {
    int round = 0;
    for (const double g : {1.00, 1.01, 0.99, 1.02, 0.98}) {
      auto run =
          zl::test::run_of(zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, g * scale}}), caliber);
      run.info.path = fmt::format("/nights/night-{}/round-{}/abs", n, ++round);
      run.info.started_at = fmt::format("2026-01-0{}T00:00:0{}Z", n, round);
      store.ingest(run);
    }
  };
  const zl::results::Caliber graph{"cuda", "core", "graph", "kernel", "shared"};
  for (const int n : {1, 2, 3, 4, 8, 7, 6, 5}) { // ingested out of order: the start decides
    night(n, n > 4 ? 1.3 : 1.0, graph);
  }
  night(9, 1.0, {"cuda", "core", "direct", "kernel", "shared"});
  std::size_t cut = 0;
  Json j;
  write_history(j, store, 6, &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  REQUIRE(d["calibers"].Size() == 2);
  const auto& direct = d["calibers"][0]; // keys sort: "…timer=direct…" first
  CHECK(direct["campaigns"].Size() == 1);
  CHECK(direct["before"].IsNull());
  CHECK(direct["charts"][0][2][0][2].Size() == 0); // one campaign: no change
  const auto& g = d["calibers"][1];
  CHECK(g["campaigns_in_store"].GetUint() == 8);
  REQUIRE(g["campaigns"].Size() == 6); // the last six
  CHECK(std::string(g["campaigns"][0][0].GetString()) == "/nights/night-3");
  CHECK(std::string(g["campaigns"][5][0].GetString()) == "/nights/night-8");
  CHECK(std::string(g["before"][0].GetString()) == "/nights/night-2");
  REQUIRE(g["charts"].Size() == 1); // abs float16
  CHECK(std::string(g["charts"][0][0].GetString()) == "abs");
  REQUIRE(g["charts"][0][2].Size() == 1); // one size: one line
  const auto& line = g["charts"][0][2][0];
  CHECK(std::string(line[0].GetString()) == "[torch.Size([64])]");
  CHECK(line[1][0].GetDouble() == doctest::Approx(1.0));
  CHECK(line[1][5].GetDouble() == doctest::Approx(1.3));
  // zl history's change point: night-5, the third drawn; slower by 30%, held four nights.
  REQUIRE(line[2].Size() == 1);
  CHECK(line[2][0][0].GetUint() == 2);
  CHECK(std::string(line[2][0][1].GetString()) == "slower");
  CHECK(line[2][0][2].GetDouble() == doctest::Approx(0.3).epsilon(0.01));
  CHECK(line[2][0][3].GetBool());
  CHECK(std::string(line[2][0][4].GetString()) == "no identity recorded to compare");

  // A window of the slower nights alone: nothing changes within it.
  Json last;
  write_history(last, store, 3, &cut);
  REQUIRE_FALSE(d.Parse(last.text().c_str()).HasParseError());
  const auto& three = d["calibers"][1];
  REQUIRE(three["campaigns"].Size() == 3);
  CHECK(std::string(three["before"][0].GetString()) == "/nights/night-5");
  CHECK(three["charts"][0][2][0][2].Size() == 0);
}
