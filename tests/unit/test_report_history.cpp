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
  // Three nights of five rounds each, the third 30% slower; and a night of another caliber.
  auto night = [&](const std::string& name, double scale, const zl::results::Caliber& caliber) {
    int round = 0;
    for (const double g : {1.00, 1.01, 0.99, 1.02, 0.98}) {
      auto run =
          zl::test::run_of(zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, g * scale}}), caliber);
      run.info.path = fmt::format("/nights/{}/round-{}/abs", name, ++round);
      run.info.started_at = fmt::format("2026-01-0{}T00:00:0{}Z", name.back(), round);
      store.ingest(run);
    }
  };
  const zl::results::Caliber graph{"cuda", "core", "graph", "kernel", "shared"};
  night("night-1", 1.0, graph);
  night("night-3", 1.3, graph);
  night("night-2", 1.0, graph); // ingested out of order: the start decides
  night("night-4", 1.0, {"cuda", "core", "direct", "kernel", "shared"});
  std::size_t cut = 0;
  Json j;
  write_history(j, store, 2, {}, &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  REQUIRE(d["calibers"].Size() == 2);
  const auto& direct = d["calibers"][0]; // keys sort: "…timer=direct…" first
  CHECK(direct["campaigns"].Size() == 1);
  const auto& g = d["calibers"][1];
  CHECK(g["campaigns_in_store"].GetUint() == 3);
  REQUIRE(g["campaigns"].Size() == 2); // the last two
  CHECK(std::string(g["campaigns"][0][0].GetString()) == "/nights/night-2");
  CHECK(std::string(g["campaigns"][1][0].GetString()) == "/nights/night-3");
  REQUIRE(g["charts"].Size() == 1); // abs float16
  CHECK(std::string(g["charts"][0][0].GetString()) == "abs");
  REQUIRE(g["charts"][0][2].Size() == 1); // one size: one line
  const auto& line = g["charts"][0][2][0];
  CHECK(std::string(line[0].GetString()) == "[torch.Size([64])]");
  CHECK(line[1][0].GetDouble() == doctest::Approx(1.0));
  CHECK(line[1][1].GetDouble() == doctest::Approx(1.3));
  REQUIRE(line[2].Size() == 1); // the U test of night-2 against night-3 calls it slower
  CHECK(line[2][0].GetUint() == 1);
  // The first drawn is compared with the campaign just before the window: night-1.
  CHECK(std::string(g["before"][0].GetString()) == "/nights/night-1");
  CHECK(direct["before"].IsNull());

  // The window's first campaign is the slower one: the one before the window tells it.
  Json last;
  write_history(last, store, 1, {}, &cut);
  REQUIRE_FALSE(d.Parse(last.text().c_str()).HasParseError());
  const auto& one = d["calibers"][1];
  REQUIRE(one["campaigns"].Size() == 1);
  CHECK(std::string(one["before"][0].GetString()) == "/nights/night-2");
  const auto& only = one["charts"][0][2][0];
  REQUIRE(only[2].Size() == 1);
  CHECK(only[2][0].GetUint() == 0);
}
