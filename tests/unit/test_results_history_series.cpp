#include "results/history/series.hpp"

#include "results/store/store.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

using namespace zl::results::history;

namespace {

std::string identity(const std::string& commit, const std::string& torch = "2.1.0")
{
  return fmt::format(R"({{"zl_version": "0.1.0", "flaggems_commit": "{}", "versions": {{"torch": "{}",
 "triton": "3.0.0"}}, "started_at": "x"}})",
                     commit, torch);
}

// nights of abs at 64 and 1024 elements, two rounds each; from step on, 64 is 30% slower and the
// FlagGems commit changes.
void fill(zl::results::store::Store& store, std::size_t nights, std::size_t step)
{
  // About 1% of noise, irregular: a regular one would have differences of one size, and no spread.
  static const double noise[] = {1.004, 0.993, 1.011, 0.998, 1.006, 0.989, 1.002, 1.009, 0.995, 1.001, 0.992, 1.007};
  for (std::size_t n = 1; n <= nights; ++n) {
    const double wiggle = noise[(n - 1) % 12], slow = n >= step ? 1.3 : 1.0;
    for (int round = 1; round <= 2; ++round) {
      const double g = wiggle * (round == 1 ? 0.995 : 1.005);
      auto run = zl::test::run_of(
          zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, g * slow}, {"[1024]", 2.0, 2 * g}}));
      run.info.path = fmt::format("/nights/night-{:02}/round-{}/abs", n, round);
      run.info.started_at = fmt::format("2026-01-{:02}T00:00:0{}Z", n, round);
      run.info.device_uuid = "GPU-1";
      run.info.identity_json = identity(n >= step ? "bbb" : "aaa");
      store.ingest(run);
    }
  }
}

struct Built
{
  std::vector<Campaign> campaigns;
  std::vector<Series> series;
};

Built built(const zl::results::store::Store& store)
{
  Built b{campaigns_of(store.load()), {}};
  b.series = build_series(b.campaigns, "cal");
  return b;
}

} // namespace

TEST_CASE("zl::results::history::campaign_of")
{
  CHECK(campaign_of("/runs/night-1/abs") == "/runs/night-1");
  CHECK(campaign_of("/runs/night-1/round-3/abs") == "/runs/night-1");
}

TEST_CASE("zl::results::history::build_series from a store")
{
  zl::test::TempDir dir;
  zl::results::store::Store store(dir.path() + "/store.sqlite");
  fill(store, 3, 3);
  const auto b = built(store);
  REQUIRE(b.campaigns.size() == 3); // the rounds of a night are one campaign
  CHECK(b.campaigns[0].path == "/nights/night-01");
  CHECK(b.campaigns[0].started == "2026-01-01T00:00:01Z");
  CHECK(b.campaigns[2].runs.size() == 2);
  REQUIRE(b.series.size() == 2); // 64 and 1024: one series each
  for (const auto& s : b.series) {
    CHECK(s.id.caliber == "cal");
    CHECK(s.id.device == "GPU-1");
    CHECK(s.id.op == "abs");
    REQUIRE(s.points.size() == 3);
    CHECK(s.runs.size() == 3);
    CHECK(s.points[2].campaign == 2);
    CHECK_FALSE(s.points[0].ci_lo); // no samples kept: no interval
  }
  const auto& small = b.series[0].id.shape == "[torch.Size([64])]" ? b.series[0] : b.series[1];
  CHECK(small.points[0].value == doctest::Approx(1.004)); // the median of the two rounds
  CHECK(small.points[2].value == doctest::Approx(1.011 * 1.3));
}

TEST_CASE("zl::results::history::what_changed")
{
  const auto a = zl::run::parse_identity(identity("aaa"), "a");
  CHECK(what_changed(a, a).empty());
  const auto b = zl::run::parse_identity(identity("bbb", "2.2.0"), "b");
  const auto d = what_changed(a, b);
  REQUIRE(d.size() == 2);
  CHECK(d[0].field == Field::flaggems_commit);
  CHECK(label(d[0]) == "FlagGems commit");
  CHECK(d[0].before == "aaa");
  CHECK(d[0].after == "bbb");
  CHECK(d[1].field == Field::version);
  CHECK(label(d[1]) == "torch version");
  CHECK(d[1].after == "2.2.0");
  auto driver = a;
  driver.driver = "550.54";
  REQUIRE(what_changed(a, driver).size() == 1);
  CHECK(what_changed(a, driver)[0].field == Field::driver);
  // A run without an identity: nothing can be said, which is not "nothing changed".
  zl::results::Run with, without;
  with.info.identity_json = identity("aaa");
  CHECK_FALSE(what_changed(with, without));
  REQUIRE(what_changed(with, with));
  CHECK(what_changed(with, with)->empty());
}

TEST_CASE("zl::results::history::check, its text and JSON")
{
  zl::test::TempDir dir;
  zl::results::store::Store store(dir.path() + "/store.sqlite");
  fill(store, 12, 7);
  const auto b = built(store);
  History h;
  h.campaigns = b.campaigns.size();
  check(h, b.series, b.campaigns);
  CHECK(h.series_checked == 2);
  REQUIRE(h.changes.size() == 1); // only 64's: 1024 kept its level through the commit change
  const auto& c = h.changes[0];
  CHECK(c.series.shape == "[torch.Size([64])]");
  CHECK(c.campaign == "/nights/night-07");
  CHECK(c.previous == "/nights/night-06");
  CHECK(c.point.confirmed);
  CHECK(c.point.direction == Direction::slower);
  CHECK(c.point.relative == doctest::Approx(0.3).epsilon(0.05));
  CHECK_FALSE(c.recent); // six campaigns of the new level: an earlier check saw it confirmed
  REQUIRE(c.changed);
  REQUIRE(c.changed->size() == 1);
  CHECK(c.changed->front().field == Field::flaggems_commit);
  CHECK(regressions(h, 10) == 0);

  const auto text = format_text(h);
  CHECK(text.find("abs torch.float16 [torch.Size([64])] at /nights/night-07 (2026-01-07T00:00:01Z)") == 0);
  CHECK(text.find("slower, confirmed; FlagGems commit aaa -> bbb\n") != std::string::npos);
  CHECK(text.find("zl history: 2 series over 12 campaigns: 1 change point (1 confirmed, 0 tentative), 0 drifts") !=
        std::string::npos);

  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(format_json(h).c_str()).HasParseError());
  CHECK(d["version"].GetInt() == 1);
  CHECK(d["series_checked"].GetUint() == 2);
  CHECK(d["drifts"].Size() == 0);
  REQUIRE(d["changes"].Size() == 1);
  const auto& j = d["changes"][0];
  CHECK(std::string(j["op"].GetString()) == "abs");
  CHECK(std::string(j["direction"].GetString()) == "slower");
  CHECK(j["confirmed"].GetBool());
  CHECK_FALSE(j["new"].GetBool());
  CHECK(j["before_ms"].GetDouble() == doctest::Approx(1.0).epsilon(0.02));
  REQUIRE(j["changed"].Size() == 1);
  CHECK(std::string(j["changed"][0]["field"].GetString()) == "flaggems_commit");
  CHECK(j["changed"][0]["module"].IsNull());
  CHECK_FALSE(d.HasMember("unchanged"));
}

TEST_CASE("zl::results::history::regressions counts a step in the last campaigns")
{
  zl::test::TempDir dir;
  zl::results::store::Store store(dir.path() + "/store.sqlite");
  fill(store, 12, 9); // the new level holds the last four campaigns: confirmed now, for the first time
  const auto b = built(store);
  History h;
  h.list_all = true;
  check(h, b.series, b.campaigns);
  REQUIRE(h.changes.size() == 1);
  CHECK(h.changes[0].recent);
  CHECK(h.changes[0].point.confirmed);
  CHECK(regressions(h, 10) == 1);
  CHECK(regressions(h, 50) == 0); // +30% is not above 50%
  REQUIRE(h.quiet.size() == 1);   // 1024
  CHECK(h.quiet[0].points == 12);
  CHECK(format_text(h).find(", new; FlagGems commit aaa -> bbb") != std::string::npos);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(format_json(h).c_str()).HasParseError());
  REQUIRE(d["unchanged"].Size() == 1);
  CHECK(std::string(d["unchanged"][0]["shape"].GetString()) == "[1024]");
}
