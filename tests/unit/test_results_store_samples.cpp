// The results store keeps every timed sample of a run (schema version 2): round trip, replacement,
// migration of an older store, damaged BLOBs.
#include "results/parse/samples_file.hpp"
#include "results/parse/sources.hpp"
#include "results/store/migrations.hpp"
#include "results/store/schema.hpp"
#include "results/store/store.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <boost/crc.hpp>
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstring>
#include <sstream>
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

void exec(sqlite3* db, const std::string& sql)
{
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  INFO(sql, ": ", error != nullptr ? error : "");
  sqlite3_free(error);
  REQUIRE(rc == SQLITE_OK);
}

std::string log3()
{
  return zl::test::table("abs", "torch.float16",
                         {{"[torch.Size([64])]", 0.002, 0.001},
                          {"[torch.Size([128])]", 0.004, 0.002},
                          {"[torch.Size([256])]", 0.008, 0.004}});
}

SampleSet set_of(std::vector<float> ms, TextStore& text, SampleStop stop = SampleStop::converged)
{
  SampleSet s;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    s.at_s.push_back(0.001f * static_cast<float>(i + 1));
  }
  s.stats = describe_samples(std::vector<double>(ms.begin(), ms.end()));
  s.ms = std::move(ms);
  s.t0 = 1700000000.25, s.stamps_measured = true, s.timer = text.copy("graph");
  s.stop = stop, s.calls = 3, s.returned = 0.002;
  return s;
}

// Three rows: the first with both sides, the second with FlagGems' only (torch's side empty:
// none kept), the third with a torch side of no samples (an unsampled timing kept as such).
Run run_with_samples()
{
  auto run = zl::test::run_of(log3());
  REQUIRE(run.rows.size() == 3);
  run.info.samples_file = run.info.path + "/samples.bin";
  run.samples.push_back(set_of({0.0021f, 0.0019f, 0.002f, 0.0020f, 0.0022f, 0.0018f, 0.002f}, run.text));
  run.samples.push_back(set_of({0.001f, 0.0011f, 0.0009f}, run.text, SampleStop::max_time));
  run.samples.push_back(set_of({0.002f, 0.0021f}, run.text, SampleStop::fixed));
  run.samples.push_back(set_of({}, run.text, SampleStop::fixed));
  run.samples.back().returned = k_na; // the timer returned no number
  run.rows[0].torch_samples = 0, run.rows[0].gems_samples = 1;
  run.rows[1].gems_samples = 2;
  run.rows[2].torch_samples = 3;
  return run;
}

void check_same_side(const Run& a, const Row& ra, const Run& b, const Row& rb, bool gems)
{
  const auto* x = a.samples_of(ra, gems);
  const auto* y = b.samples_of(rb, gems);
  REQUIRE((x == nullptr) == (y == nullptr));
  if (x == nullptr) {
    return;
  }
  CHECK(x->ms == y->ms); // float32 kept bit for bit
  CHECK(x->at_s == y->at_s);
  CHECK(x->t0 == y->t0);
  CHECK(x->stamps_measured == y->stamps_measured);
  CHECK(x->timer == y->timer);
  CHECK(x->stop == y->stop);
  CHECK(x->calls == y->calls);
  CHECK((x->returned == y->returned || (std::isnan(x->returned) && std::isnan(y->returned))));
  CHECK(x->stats.n == y->stats.n);
  CHECK(x->stats.median == y->stats.median);
  CHECK(x->stats.ci_lo == y->stats.ci_lo);
  CHECK(x->stats.warnings == y->stats.warnings);
}

// The same rows with the same samples, at the same indices.
void check_same_samples(const Run& a, const Run& b)
{
  REQUIRE(a.rows.size() == b.rows.size());
  CHECK(a.samples.size() == b.samples.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    INFO("row ", i);
    CHECK(a.rows[i].torch_samples == b.rows[i].torch_samples);
    CHECK(a.rows[i].gems_samples == b.rows[i].gems_samples);
    check_same_side(a, a.rows[i], b, b.rows[i], false);
    check_same_side(a, a.rows[i], b, b.rows[i], true);
  }
}

void put_u32(std::string& out, std::uint32_t v)
{
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
}

// One record of samples.bin as zl_samples.Sampler writes it (docs/plan-file.md).
std::string record(const std::string& shape, double returned, const std::vector<float>& ms)
{
  const auto header = fmt::format(R"({{"op":"abs","table_op":"abs","dtype":"torch.float16","shape":"{}",)"
                                  R"("timer":"graph","stop":"converged","calls":2,"returned":{},)"
                                  R"("stamps":"measured","t0":1700000000.5}})",
                                  shape, returned);
  std::string body;
  put_u32(body, static_cast<std::uint32_t>(header.size()));
  put_u32(body, static_cast<std::uint32_t>(ms.size()));
  body += header;
  for (std::size_t i = 0; i < 2 * ms.size(); ++i) {
    const float f = i < ms.size() ? ms[i] : 0.01f * static_cast<float>(i - ms.size() + 1);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    put_u32(body, bits);
  }
  boost::crc_32_type crc;
  crc.process_bytes(body.data(), body.size());
  std::string out = "ZLR1" + body;
  put_u32(out, crc.checksum());
  return out;
}

} // namespace

TEST_CASE("zl::results::store::Store::ingest_run: a run folder's samples.bin, read back as the folder gives it")
{
  TempDir dir;
  const auto folder = dir / "run";
  zl::test::write_run(folder, log3());
  zl::test::write_text(folder + "/samples.bin",
                       "ZLSAMPL1" + record("[torch.Size([64])]", 0.002, {0.002f, 0.0021f, 0.0019f}) +
                           record("[torch.Size([64])]", 0.001, {0.001f, 0.0011f}) +
                           record("[torch.Size([256])]", 0.004, {0.004f, 0.0041f, 0.0039f, 0.004f}));
  const auto from_folder = parse::load(parse::Source{folder, parse::Source::Kind::run_folder});
  REQUIRE(from_folder.samples.size() == 3);
  Store store(dir / "results.sqlite");
  CHECK(store.ingest_run(folder) == 3);
  const auto back = store.load();
  REQUIRE(back.size() == 1);
  CHECK(back[0].info.samples_file == folder + "/samples.bin");
  check_same_samples(from_folder, back[0]);
  CHECK(back[0].samples_of(back[0].rows[2], true)->ms.size() == 4);
}

TEST_CASE("zl::results::store::Store: samples round trip, both sides, a side with none")
{
  TempDir dir;
  const auto run = run_with_samples();
  Store store(dir / "results.sqlite");
  CHECK(store.ingest(run) == 3);
  CHECK(count(store.handle(), "SELECT count(*) FROM samples") == 4);
  CHECK(count(store.handle(), "SELECT sum(length(ms)) FROM samples") == 4 * (7 + 3 + 2));
  CHECK(count(store.handle(), "SELECT count(*) FROM samples WHERE length(at_s) != 4 * n") == 0);
  const auto back = store.load({run.info.path});
  REQUIRE(back.size() == 1);
  CHECK(back[0].info.samples_file == run.info.samples_file);
  CHECK(back[0].diagnostics.empty());
  check_same_samples(run, back[0]);
  CHECK(back[0].rows[1].torch_samples == Row::k_no_samples);
  CHECK(back[0].samples_of(back[0].rows[2], false)->stats.n == 0);
}

TEST_CASE("zl::results::store::Store: a run ingested again replaces its samples")
{
  TempDir dir;
  auto run = run_with_samples();
  Store store(dir / "results.sqlite");
  store.ingest(run);
  // Again with fewer samples: row 0 keeps torch's side only, row 1 gets others.
  run.rows[0].gems_samples = Row::k_no_samples;
  run.samples[2] = set_of({0.5f, 0.6f}, run.text);
  store.ingest(run);
  CHECK(count(store.handle(), "SELECT count(*) FROM runs") == 1);
  CHECK(count(store.handle(), "SELECT count(*) FROM samples") == 3);
  auto back = store.load({run.info.path});
  REQUIRE(back.size() == 1);
  CHECK(back[0].samples_of(back[0].rows[0], true) == nullptr);
  REQUIRE(back[0].samples_of(back[0].rows[1], true) != nullptr);
  CHECK(back[0].samples_of(back[0].rows[1], true)->ms == std::vector<float>{0.5f, 0.6f});
  // And without any: none left behind.
  run.samples.clear();
  for (auto& r : run.rows) {
    r.torch_samples = r.gems_samples = Row::k_no_samples;
  }
  store.ingest(run);
  CHECK(count(store.handle(), "SELECT count(*) FROM samples") == 0);
  CHECK(store.load({run.info.path})[0].samples.empty());
}

TEST_CASE("zl::results::store::Store: a store of schema version 1 is migrated and keeps its runs")
{
  TempDir dir;
  const auto path = dir / "old.sqlite";
  {
    // As a zl of version 1 left it: its schema (migrations are append-only, so the first is it
    // as shipped) and a run with one row.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    exec(db, migrations::k_migrations[0].sql);
    exec(db, "PRAGMA user_version = 1");
    exec(db, "INSERT INTO runs (id, path, kind, backend, timer) VALUES (1, '/old/run', 'run', 'cuda', 'graph')");
    exec(db, "INSERT INTO rows (run_id, seq, op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, source) "
             "VALUES (1, 0, 'abs', 'torch.float16', '[64]', 0, 'SUCCESS', 0.002, 0.001, 'table')");
    sqlite3_close(db);
  }
  Store store(path);
  CHECK(count(store.handle(), "PRAGMA user_version") == schema_version());
  CHECK(schema_version() == 3);
  auto old = store.load({"/old/run"});
  REQUIRE(old.size() == 1);
  REQUIRE(old[0].rows.size() == 1);
  CHECK(old[0].rows[0].gems_ms == 0.001);
  CHECK(old[0].samples.empty());
  CHECK(old[0].info.samples_file.empty());
  CHECK_FALSE(old[0].rows[0].throttled); // schema 3's mark: a run of before read no telemetry
  CHECK(old[0].info.telemetry_file.empty());
  // It takes samples from now on, and deleting an old run (ingesting it again) still works.
  const auto run = run_with_samples();
  store.ingest(run);
  check_same_samples(run, store.load({run.info.path})[0]);
  exec(store.handle(), "DELETE FROM runs WHERE path = '/old/run'");
  CHECK(count(store.handle(), "SELECT count(*) FROM rows") == 3);
}

TEST_CASE("zl::results::store::Store: a database of version 1 that is not a store is refused untouched")
{
  // Migrating it would add tables to another program's database before finding it is not a store.
  TempDir dir;
  for (const char* tables : {"CREATE TABLE runs (x)", "CREATE TABLE other (x)"}) {
    CAPTURE(tables);
    const auto path = dir / "foreign.sqlite";
    ::unlink(path.c_str());
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    exec(db, tables);
    exec(db, "PRAGMA user_version = 1");
    CHECK_THROWS_WITH_AS(Store{path}, doctest::Contains("is not a zl results store (or one zl cannot migrate)"),
                         zl::Error);
    CHECK(count(db, "PRAGMA user_version") == 1);
    CHECK(count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'") == 0);
    sqlite3_close(db);
  }
}

TEST_CASE("zl::results::store::Store::load: a damaged samples BLOB is left out with a diagnostic")
{
  // Skipped, not fatal: the row's latency stands without its samples (as with a damaged record of
  // samples.bin), and one bad side must not make a campaign's whole store unreadable.
  TempDir dir;
  const auto run = run_with_samples();
  Store store(dir / "results.sqlite");
  std::ostringstream report;
  store.set_report_stream(&report);
  store.ingest(run);
  SUBCASE("ms cut short")
  {
    exec(store.handle(), "UPDATE samples SET ms = substr(ms, 1, 5) WHERE row_seq = 0 AND side = 'gems'");
  }
  SUBCASE("at_s a TEXT of the right length")
  {
    exec(store.handle(), "UPDATE samples SET at_s = '123456789012' WHERE row_seq = 0 AND side = 'gems'");
  }
  SUBCASE("an unknown stop")
  {
    exec(store.handle(), "UPDATE samples SET stop = 'sideways' WHERE row_seq = 0 AND side = 'gems'");
  }
  const auto back = store.load({run.info.path});
  REQUIRE(back.size() == 1);
  const auto& r = back[0];
  CHECK(r.rows.size() == 3);
  CHECK(r.samples_of(r.rows[0], true) == nullptr);
  CHECK(r.samples.size() == 3); // the other sides are kept
  REQUIRE(r.samples_of(r.rows[0], false) != nullptr);
  CHECK(r.samples_of(r.rows[0], false)->ms == run.samples[0].ms);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].file == dir / "results.sqlite");
  CHECK(r.diagnostics[0].reason.find("the gems samples of row 0 of " + run.info.path) == 0);
  CHECK(report.str().find(dir / "results.sqlite: the gems samples of row 0") == 0);
  CHECK(report.str().find("ingest the run folder again") != std::string::npos);
}

TEST_CASE("zl::results::store::Store: throttled rows and the device's state come back as ingested")
{
  TempDir dir;
  Store store(dir / "s.sqlite");
  auto run = run_with_samples();
  run.rows[0].throttled = true;
  run.info.throttled_rows = 1;
  run.info.telemetry_file = run.info.path + "/telemetry.jsonl";
  run.info.throttle_cause = "throttle reason power (SwPowerCap)";
  run.info.identity_json = R"({"telemetry": {"clocks_locked": true, "locked_mhz": 1410, "ecc": false}})";
  store.ingest(run);
  const auto back = store.load({run.info.path});
  REQUIRE(back.size() == 1);
  CHECK(back[0].rows[0].throttled);
  CHECK_FALSE(back[0].rows[1].throttled);
  CHECK(back[0].info.throttled_rows == 1);
  CHECK(back[0].info.telemetry_file == run.info.telemetry_file);
  CHECK(back[0].info.throttle_cause == "throttle reason power (SwPowerCap)");
  CHECK(back[0].info.device_state == "clocks_locked=yes ecc=off");
}
