#include "results/parse/sources.hpp"

#include "batch/ops_status.hpp"

#include "fixture.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace zl::results;
using namespace zl::results::parse;
using zl::test::TempDir;

TEST_CASE("zl::results::parse::discover")
{
  TempDir dir;
  const auto log = zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1, 1}});
  // An A/B side laid out in rounds, one run folder per op per round.
  for (const char* run : {"round-1/abs", "round-1/mm", "round-2/abs", "round-2/mm", "round-10/abs"}) {
    zl::test::write_run(dir / ("side/" + std::string(run)), log);
  }
  zl::test::write_run(dir / "side/.hidden/abs", log);
  zl::test::write_text(dir / "side/ops_status.csv", "op,status\n");

  SUBCASE("a campaign: every run folder below it, sorted, hidden folders skipped")
  {
    const auto found = discover(dir / "side");
    REQUIRE(found.size() == 5);
    CHECK(found[0].path == dir / "side/round-1/abs");
    CHECK(found[0].kind == Source::Kind::run_folder);
    CHECK(found[2].path == dir / "side/round-10/abs");
  }
  SUBCASE("a run folder is itself")
  {
    const auto found = discover(dir / "side/round-1/abs/");
    REQUIRE(found.size() == 1);
    CHECK(found[0].path == dir / "side/round-1/abs");
  }
  SUBCASE("files: a text log or a record log")
  {
    CHECK(discover(dir / "side/round-1/abs/run.log")[0].kind == Source::Kind::text_log);
    CHECK(discover(zl::test::fixture_path("flaggems_output/record.log"))[0].kind == Source::Kind::record_log);
    CHECK(discover(zl::test::fixture_path("flaggems_output/garbage.log"))[0].kind == Source::Kind::text_log);
  }
  SUBCASE("nothing to read")
  {
    CHECK_THROWS_WITH_AS(discover(dir / "nonexistent"), doctest::Contains("nonexistent does not exist"), zl::Error);
    boost::filesystem::create_directories(dir / "empty/sub");
    CHECK_THROWS_WITH_AS(discover(dir / "empty"), doctest::Contains("holds no run folder"), zl::Error);
  }
}

TEST_CASE("zl::results::parse::discover_all: each run once, links not followed, attempts listed (issue 10.11, 10.12)")
{
  TempDir dir;
  const auto log = zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1, 1}});
  for (const char* run : {"c/abs", "c/mm", "c/abs.attempt-1", "c/deep/a/b/c/d/e/f/g/sub"}) {
    zl::test::write_run(dir / run, log);
  }
  std::vector<zl::batch::OpStatus> ops(2);
  ops[0].op = "abs", ops[0].status = OpState::ok;
  ops[1].op = "mm", ops[1].status = OpState::timeout;
  zl::test::write_text(dir / "c/ops_status.csv", zl::batch::format_ops_status(ops));
  boost::filesystem::create_symlink(dir / "c/abs", dir / "c/link");
  boost::filesystem::create_directory_symlink("..", dir / "c/deep/up");

  const auto found = discover_all({dir / "c/abs", dir / "c", dir / "c/"});
  REQUIRE(found.sources.size() == 3);
  CHECK(found.sources[0].path == dir / "c/abs");
  CHECK(found.sources[1].path == dir / "c/deep/a/b/c/d/e/f/g/sub"); // any depth
  CHECK(found.sources[2].path == dir / "c/mm");
  CHECK(found.attempts == std::vector<std::string>{dir / "c/abs.attempt-1"});
  REQUIRE(found.ops.size() == 2);
  CHECK(found.ops[1].op == "mm");
  CHECK(found.ops[1].status == OpState::timeout);
  std::string notes;
  for (const auto& n : found.notes) {
    notes += n + "\n";
  }
  CHECK(notes.find(dir / "c/link: a symbolic link, not followed") != std::string::npos);
  CHECK(notes.find(dir / "c/deep/up: a symbolic link, not followed") != std::string::npos);
  CHECK(notes.find(dir / "c/abs: already counted") != std::string::npos);
  CHECK(notes.find(dir.path() + "/c: already counted") != std::string::npos);
  // An attempt named alone is what was asked for; a run folder named alone keeps its op's status.
  CHECK(discover(dir / "c/abs.attempt-1").size() == 1);
  const auto mm = discover_all({dir / "c/mm"});
  REQUIRE(mm.ops.size() == 1);
  CHECK(mm.ops[0].status == OpState::timeout);
}

TEST_CASE("zl::results::parse::load: nothing FlagGems' is an error, files outside the run are not read (10.16, 10.17)")
{
  TempDir dir;
  zl::test::write_text(dir / "empty.log", "");
  CHECK_THROWS_WITH_AS(load({dir / "empty.log", Source::Kind::text_log}),
                       doctest::Contains("no FlagGems table or record log found in"), zl::Error);
  boost::filesystem::create_directories(dir / "other");
  zl::test::write_text(dir / "other/record.log", zl::test::read_fixture("flaggems_output/record.log"));
  zl::test::write_run(dir / "run", zl::test::read_fixture("flaggems_output/tflops.log"));
  boost::filesystem::create_symlink(dir / "other/record.log", dir / "run/record.log");
  const auto run = load({dir / "run", Source::Kind::run_folder});
  CHECK(run.info.record_file.empty());
  REQUIRE(run.warnings.size() == 1);
  CHECK(run.warnings[0].file == dir / "run/record.log");
  CHECK(run.rows.size() == 5);
}

TEST_CASE("zl::results::parse::load")
{
  TempDir dir;
  SUBCASE("a run folder: caliber from the identity, timer per row, record log merged")
  {
    zl::test::write_run(dir / "run", zl::test::read_fixture("flaggems_output/tflops.log"), "abs", "profiler");
    zl::test::write_text(dir / "run/record.log", zl::test::read_fixture("flaggems_output/record.log"));
    const auto run = load({dir / "run", Source::Kind::run_folder});
    // The record log's sum_dim_out has no table in this run.log: another session's, not counted.
    CHECK(run.diagnostics.empty());
    REQUIRE_FALSE(run.foreign.empty());
    for (const auto& d : run.foreign) {
      CHECK(d.reason.find("record log entry sum_dim_out ") == 0);
    }
    CHECK(run.info.kind == "run");
    CHECK(run.info.caliber.backend == "cuda");
    CHECK(run.info.caliber.timer == "profiler");
    CHECK(run.info.caliber.level == "core");
    CHECK(run.info.record_file == dir / "run/record.log");
    REQUIRE(run.rows.size() == 5);
    CHECK(run.rows[0].timer() == "profiler"); // ZL_RUN's timer: no ZL_TIMER in this log
    CHECK(run.rows[0].gems_ms == 0.00100049);
  }
  SUBCASE("an identity that is not JSON is reported; the log still counts")
  {
    zl::test::write_run(dir / "run", zl::test::read_fixture("flaggems_output/tflops.log"));
    zl::test::write_text(dir / "run/run_identity.json", "{\n  \"schema\": 1,\n  oops\n}");
    const auto run = load({dir / "run", Source::Kind::run_folder});
    REQUIRE(run.diagnostics.size() == 1);
    CHECK(run.diagnostics[0].file == dir / "run/run_identity.json");
    CHECK(run.diagnostics[0].line == 3);
    CHECK(run.rows.size() == 5);
    CHECK(run.info.caliber.backend == "cuda"); // from ZL_RUN
  }
  SUBCASE("an identity with a member of the wrong type is reported as one that is not JSON")
  {
    zl::test::write_run(dir / "run", zl::test::read_fixture("flaggems_output/tflops.log"), "abs", "profiler");
    zl::test::write_text(dir / "run/run_identity.json", R"({"backend": {"name": "cpu"}, "timer": {"effective": 1}})");
    const auto run = load({dir / "run", Source::Kind::run_folder});
    REQUIRE(run.diagnostics.size() == 1);
    CHECK(run.diagnostics[0].file == dir / "run/run_identity.json");
    CHECK(run.diagnostics[0].reason ==
          "not a run identity (timer.effective is a number, not a string): the run's caliber is taken from its log");
    CHECK(run.info.identity_json.empty());
    CHECK(run.info.caliber.backend == "cuda"); // ZL_RUN's, not the damaged identity's
    CHECK(run.info.caliber.timer == "profiler");
  }
  SUBCASE("a bare log: mode and level from the table titles")
  {
    const auto run = load({zl::test::fixture_path("flaggems_output/gbps.log"), Source::Kind::text_log});
    CHECK(run.info.kind == "log");
    CHECK(run.info.caliber.level == "comprehensive");
    CHECK(run.info.caliber.mode == "kernel");
    CHECK(run.info.caliber.backend.empty());
    CHECK(run.info.op == "sum");
  }
  SUBCASE("a bare record log")
  {
    const auto run = load({zl::test::fixture_path("flaggems_output/record.log"), Source::Kind::record_log});
    CHECK(run.rows.size() == 7);
    CHECK(run.info.caliber.level == "core");
    CHECK(run.info.op == "abs,sum_dim_out");
  }
  SUBCASE("load_all keeps the order and reports what it cannot read")
  {
    std::vector<Source> sources;
    for (int i = 0; i < 9; ++i) {
      zl::test::write_run(dir / ("r" + std::to_string(i)),
                          zl::test::table("op" + std::to_string(i), "torch.float16", {{"[torch.Size([1])]", 1, 1}}));
      sources.push_back({dir / ("r" + std::to_string(i)), Source::Kind::run_folder});
    }
    const auto runs = load_all(sources, 4);
    REQUIRE(runs.size() == 9);
    CHECK(runs[7].rows[0].op() == "op7");
    sources.push_back({dir / "missing.log", Source::Kind::text_log});
    CHECK_THROWS_WITH_AS(load_all(sources, 4), doctest::Contains("cannot read"), zl::Error);
  }
}

TEST_CASE("zl::results::parse::print_diagnostics")
{
  std::ostringstream out;
  print_diagnostics(out, {{"a.log", 3, "bad"}, {"b.log", 0, "12 more malformed lines not shown"}});
  CHECK(out.str() == "a.log:3: bad\nb.log: 12 more malformed lines not shown\n");
}
