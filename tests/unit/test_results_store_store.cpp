#include "results/store/store.hpp"

#include "fixture.hpp"
#include "results/parse/sources.hpp"
#include "results/store/schema.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <memory>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace zl::results;
using namespace zl::results::store;
using zl::test::TempDir;

namespace {

long long count(sqlite3* db, const std::string& sql)
{
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  const auto n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

std::string abs_log()
{
  return zl::test::table("abs", "torch.float16",
                         {{"[torch.Size([64])]", 0.002, 0.001}, {"[torch.Size([128])]", 0.004, 0.002}});
}

} // namespace

TEST_CASE("zl::results::store::Store::ingest_run")
{
  TempDir dir;
  const auto run = dir / "run";
  zl::test::write_run(run, "ZL_TIMER op=abs timer=graph node=benchmark/test_abs.py::test_abs\n" +
                               zl::test::read_fixture("flaggems_output/tflops.log"));
  zl::test::write_text(run + "/record.log", zl::test::read_fixture("flaggems_output/record.log"));
  Store store(dir / "results.sqlite");
  // 5 rows of the table; the record log's sum_dim_out has no table in run.log: another
  // session's records (foreign), reported and not stored.
  CHECK(store.ingest_run(run) == 5);
  CHECK(count(store.handle(), "SELECT count(*) FROM runs") == 1);
  CHECK(count(store.handle(), "SELECT count(*) FROM rows WHERE timer = 'graph'") == 5);
  CHECK(count(store.handle(), "SELECT count(*) FROM rows WHERE source = 'record'") == 0);
  CHECK(count(store.handle(), "SELECT count(*) FROM markers") == 2);
  CHECK(count(store.handle(), "PRAGMA user_version") == schema_version());
  // Idempotent: the same folder again replaces its rows.
  CHECK(store.ingest_run(run) == 5);
  CHECK(count(store.handle(), "SELECT count(*) FROM rows") == 5);

  const auto runs = store.load();
  REQUIRE(runs.size() == 1);
  const auto& r = runs[0];
  CHECK(r.info.path == run);
  CHECK(r.info.caliber.backend == "cuda");
  CHECK(r.info.caliber.timer == "graph");
  CHECK(r.info.caliber.tuner_cache == "shared");
  CHECK(r.info.op == "abs");
  CHECK(r.info.duration_s == 10.0);
  REQUIRE(r.rows.size() == 5);
  CHECK(r.rows[0].gems_ms == 0.00100049); // the record log's precision
  CHECK(r.rows[0].shape == "[torch.Size([1073741824])]");
  CHECK(r.rows[0].timer() == "graph");
  CHECK(r.rows[0].line == 7);
  CHECK(std::isnan(r.rows[0].torch_gbps));
  REQUIRE(r.markers.size() == 2);
  CHECK(r.markers[1].name == "ZL_TIMER");
  CHECK(r.markers[1].get("node") == "benchmark/test_abs.py::test_abs");
  CHECK_THROWS_WITH_AS(store.load({"/nowhere"}), doctest::Contains("holds no run /nowhere"), zl::Error);
}

TEST_CASE("zl::results::store::Store::ingest_run reports malformed lines with file and line")
{
  TempDir dir;
  zl::test::write_run(dir / "run", zl::test::read_fixture("flaggems_output/truncated_row.log"));
  Store store(dir / "results.sqlite");
  std::ostringstream report;
  store.set_report_stream(&report);
  CHECK(store.ingest_run(dir / "run") == 3);
  CHECK(report.str().find(dir / "run/run.log:9: malformed row of the table abs torch.float16") == 0);
  CHECK_THROWS_WITH_AS(store.ingest_run(dir.path()), doctest::Contains("is not a run folder"), zl::Error);
}

TEST_CASE("zl::results::store::Store::expected_duration")
{
  TempDir dir;
  Store store(dir / "results.sqlite");
  store.set_report_stream(nullptr);
  int n = 0;
  for (const auto& [op, duration, status] : {std::tuple{"abs", 10.0, "ok"},
                                             {"abs", 30.0, "ok"},
                                             {"abs", 20.0, "ok"},
                                             {"abs", 500.0, "failed"},
                                             {"mm", 7.0, "ok"}}) {
    const auto run = dir / ("run" + std::to_string(n++));
    zl::test::write_run(run, abs_log(), op, "graph", duration, status);
    store.ingest_run(run);
  }
  CHECK(store.expected_duration("cuda", "abs") == 20.0);
  CHECK(store.expected_duration("cuda", "mm") == 7.0);
  CHECK_FALSE(store.expected_duration("musa", "abs"));
  CHECK_FALSE(store.expected_duration("cuda", "nosuch"));
}

TEST_CASE("zl::results::store::Store refuses what it cannot use")
{
  TempDir dir;
  SUBCASE("a schema newer than this zl")
  {
    {
      Store store(dir / "new.sqlite");
      sqlite3_exec(store.handle(), "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    }
    CHECK_THROWS_WITH_AS(
        Store(dir / "new.sqlite"),
        doctest::Contains(
            fmt::format("has schema version 99, newer than this zl knows ({}); use a newer zl", schema_version())
                .c_str()),
        zl::Error);
  }
  SUBCASE("a file that is not a database")
  {
    zl::test::write_text(dir / "junk.sqlite", std::string(4096, 'x'));
    CHECK_THROWS_WITH_AS(Store(dir / "junk.sqlite"), doctest::Contains("is not a zl results store"), zl::Error);
  }
  SUBCASE("a folder that does not exist")
  {
    CHECK_THROWS_WITH_AS(Store(dir / "no/such/dir/x.sqlite"), doctest::Contains("cannot open the results store"),
                         zl::Error);
  }
}

TEST_CASE("zl::results::store::Store: parallel writers lose nothing")
{
  // Several processes create, migrate and fill one database at once, as zl batch's workers do.
  TempDir dir;
  constexpr int k_procs = 6, k_runs = 5;
  for (int p = 0; p < k_procs; ++p) {
    for (int r = 0; r < k_runs; ++r) {
      zl::test::write_run(dir / fmt::format("p{}/r{}", p, r), abs_log());
    }
  }
  const auto db = dir / "results.sqlite";
  std::vector<pid_t> children;
  for (int p = 0; p < k_procs; ++p) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 0;
      try {
        Store store(db);
        for (int r = 0; r < k_runs; ++r) {
          rc |= store.ingest_run(dir / fmt::format("p{}/r{}", p, r)) == 2 ? 0 : 1;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", p, e.what());
        rc = 2;
      }
      ::_exit(rc);
    }
    children.push_back(pid);
  }
  for (const auto pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  Store store(db);
  CHECK(count(store.handle(), "SELECT count(*) FROM runs") == k_procs * k_runs);
  CHECK(count(store.handle(), "SELECT count(*) FROM rows") == k_procs * k_runs * 2);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(store.handle(), "PRAGMA journal_mode", -1, &s, nullptr);
  sqlite3_step(s);
  CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) == "wal");
  sqlite3_finalize(s);
}

TEST_CASE("zl::results::store::Db::migrate: openers racing on a fresh file all see a store")
{
  // CI once saw one of eight `zl summary --db` call a fresh store foreign: it read
  // user_version 0, another process committed the schema, then it saw tables. Many rounds of
  // openers that do nothing but open widen that window.
  TempDir dir;
  constexpr int k_rounds = 40, k_procs = 8;
  int failures = 0;
  for (int round = 0; round < k_rounds; ++round) {
    const auto db = dir / fmt::format("r{}.sqlite", round);
    std::vector<pid_t> children;
    for (int p = 0; p < k_procs; ++p) {
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        try {
          Store store(db);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "round %d opener %d: %s\n", round, p, e.what());
          ::_exit(1);
        }
        ::_exit(0);
      }
      children.push_back(pid);
    }
    for (const auto pid : children) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      failures += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("zl::results::store::Store::ingest: a row whose dtype the log does not say (fuzz_table_parser)")
{
  // pytest's FAILED line names no dtype: the empty string must be stored as "", never as NULL.
  parse::Source source{"/fuzz/run.log", parse::Source::Kind::text_log};
  source.content = std::make_shared<const std::string>(
      zl::test::read_fixture("../fuzz/regressions/table_parser/pytest-failed-no-dtype.log"));
  const auto run = parse::load(source);
  REQUIRE(run.rows.size() == 1);
  Store store(":memory:");
  CHECK(store.ingest(run) == 1);
  const auto back = store.load({source.path});
  REQUIRE(back.size() == 1);
  REQUIRE(back[0].rows.size() == 1);
  CHECK(back[0].rows[0].op() == "abs");
  CHECK(back[0].rows[0].dtype().empty());
}

TEST_CASE("zl::results::store::Store: runs chosen without their rows, and by the ops of their rows")
{
  TempDir dir;
  Store store(dir / "s.sqlite");
  auto abs = zl::test::run_of(abs_log());
  auto add = zl::test::run_of(zl::test::table("add", "torch.float32", {{"[torch.Size([8])]", 0.002, 0.001}}));
  auto both = zl::test::run_of(abs_log() + zl::test::table("neg", "torch.float16", {{"[1]", 0.002, 0.001}}));
  for (const auto* r : {&abs, &add, &both}) {
    store.ingest(*r);
  }
  const auto infos = store.load_infos();
  REQUIRE(infos.size() == 3);
  CHECK(infos[0].rows.empty());
  CHECK(infos[0].info.caliber.timer == "graph");
  CHECK(store.paths_with_ops({"abs"}) == std::vector<std::string>{abs.info.path, both.info.path});
  CHECK(store.paths_with_ops({"neg", "add"}) == std::vector<std::string>{add.info.path, both.info.path});
  CHECK(store.paths_with_ops({"mm"}).empty());
}
