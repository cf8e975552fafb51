#include "run/tuner_cache.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <fstream>

using zl::test::TempDir;

namespace {

void exec(const std::string& db_path, const std::string& sql)
{
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(db_path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  CHECK_MESSAGE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK, (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
}

} // namespace

TEST_CASE("zl::run::inspect_tuner_cache")
{
  TempDir cache;
  ::unsetenv("FLAGGEMS_DB_URL");
  SUBCASE("an empty cache holds nothing")
  {
    const auto c = zl::run::inspect_tuner_cache(cache.path(), "shared");
    REQUIRE(c.entries_before);
    CHECK(*c.entries_before == 0);
  }
  SUBCASE("config tables count, benchmark tables do not")
  {
    boost::filesystem::create_directories(cache / "config_cache");
    const auto db = cache / "config_cache/TunedConfig_nvidia_triton_3_3.db";
    exec(db, "CREATE TABLE \"mm_kernel_abc-123\" (key_0 INTEGER, BLOCK_M INTEGER);"
             "INSERT INTO \"mm_kernel_abc-123\" VALUES (1, 64), (2, 128);"
             "CREATE TABLE \"abs_x-1\" (key_0 INTEGER); INSERT INTO \"abs_x-1\" VALUES (5);"
             "CREATE TABLE \"mm_kernel_key_benchmark_v2-9\" (key_0 INTEGER, p50 REAL);"
             "INSERT INTO \"mm_kernel_key_benchmark_v2-9\" VALUES (1, 0.1), (1, 0.2), (2, 0.3);");
    const auto c = zl::run::inspect_tuner_cache(cache.path(), "shared");
    REQUIRE(c.entries_before);
    CHECK(*c.entries_before == 3);
    CHECK(c.databases == std::vector<std::string>{db});
  }
  SUBCASE("a corrupt database is named, not counted as cold")
  {
    boost::filesystem::create_directories(cache / "config_cache");
    std::ofstream(cache / "config_cache/TunedConfig_x.db") << "this is not sqlite, not at all, not even close....";
    const auto c = zl::run::inspect_tuner_cache(cache.path(), "shared");
    CHECK_FALSE(c.entries_before);
    CHECK(c.note.find(cache / "config_cache/TunedConfig_x.db") != std::string::npos);
  }
  SUBCASE("FLAGGEMS_DB_URL that is not SQLite is said so")
  {
    ::setenv("FLAGGEMS_DB_URL", "postgresql+psycopg://db/x", 1);
    const auto c = zl::run::inspect_tuner_cache(cache.path(), "shared");
    CHECK_FALSE(c.entries_before);
    CHECK(c.note == "FLAGGEMS_DB_URL=postgresql+psycopg://db/x is not a SQLite file; its entries are not counted");
    ::unsetenv("FLAGGEMS_DB_URL");
  }
}

TEST_CASE("zl::run::sqlite_uri percent-encodes what a URI would read otherwise")
{
  CHECK(zl::run::sqlite_uri("/home/u/.flaggems/x_1-2.db") == "file:/home/u/.flaggems/x_1-2.db?mode=ro");
  CHECK(zl::run::sqlite_uri("/c#1/a%41/b?c d.db") == "file:/c%231/a%2541/b%3Fc%20d.db?mode=ro");
}

TEST_CASE("zl::run::default_cache_dir finds home as Python does")
{
  ::unsetenv("FLAGGEMS_CACHE_DIR");
  const char* saved = std::getenv("HOME");
  const std::string home = saved ? saved : "";
  ::setenv("HOME", "/some/home", 1);
  CHECK(zl::run::default_cache_dir() == "/some/home/.flaggems");
  ::setenv("HOME", "", 1);
  CHECK(zl::run::default_cache_dir() == "/.flaggems");
  ::unsetenv("HOME");
  CHECK(zl::run::default_cache_dir() != "/.flaggems");
  if (saved) {
    ::setenv("HOME", home.c_str(), 1);
  }
}

TEST_CASE("zl::run::to_json(TunerCache)")
{
  using F = zl::run::TunerCacheField;
  const auto text = [](const zl::run::TunerCache& c) {
    zl::util::JsonWriter j;
    j.w().StartObject();
    to_json(j, c, {F::mode, F::path, F::entries_before, F::databases, F::note, F::removed_after});
    j.w().EndObject();
    return j.text();
  };
  SUBCASE("a shared cache whose entries were counted")
  {
    CHECK(text({"shared", "/root/.flaggems", 12, {"/root/.flaggems/config_cache/TunedConfig_x.db"}, ""}) ==
          "{\n  \"mode\": \"shared\",\n  \"path\": \"/root/.flaggems\",\n  \"entries_before\": 12,\n"
          "  \"databases\": [\n    \"/root/.flaggems/config_cache/TunedConfig_x.db\"\n  ],\n"
          "  \"note\": null,\n  \"removed_after\": false\n}\n");
  }
  SUBCASE("an isolated one is removed after the run; an unknown count is null, with its note")
  {
    CHECK(text({"isolated", "/r/.tuner-cache", std::nullopt, {}, "unreadable"}) ==
          "{\n  \"mode\": \"isolated\",\n  \"path\": \"/r/.tuner-cache\",\n  \"entries_before\": null,\n"
          "  \"databases\": [],\n  \"note\": \"unreadable\",\n  \"removed_after\": true\n}\n");
  }
}
