#include "run/tuner_cache.hpp"

#include "util/error.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <pwd.h>
#include <unistd.h>

namespace zl::run {

namespace fs = boost::filesystem;

namespace {

struct DbCloser
{
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtFinalizer
{
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

Stmt prepare(sqlite3* db, const std::string& sql, const std::string& path)
{
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    throw Error(fmt::format("cannot read the tuner cache {}: {}", path, sqlite3_errmsg(db)));
  }
  return Stmt(raw);
}

std::string quote_identifier(const std::string& name)
{
  std::string out = "\"";
  for (char c : name) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

using F = TunerCacheField;
using util::JsonWriter;

const util::Field<TunerCache, TunerCacheField> k_fields[] = {
    {F::mode, "mode", [](JsonWriter& j, const TunerCache& c) { j.value(c.mode); }},
    {F::path, "path", [](JsonWriter& j, const TunerCache& c) { j.value(c.path); }},
    {F::entries_before, "entries_before",
     [](JsonWriter& j, const TunerCache& c) { j.nullable_value(c.entries_before); }},
    {F::databases, "databases", [](JsonWriter& j, const TunerCache& c) { j.value(c.databases); }},
    {F::note, "note", [](JsonWriter& j, const TunerCache& c) { j.nullable_value(c.note); }},
    {F::removed_after, "removed_after", [](JsonWriter& j, const TunerCache& c) { j.value(c.mode == "isolated"); }},
};

} // namespace

void to_json(JsonWriter& j, const TunerCache& cache, std::initializer_list<util::Pick<TunerCacheField>> fields)
{
  util::write_fields(j, k_fields, cache, fields);
}

std::string sqlite_uri(const std::string& path)
{
  // RFC 3986 unreserved characters and '/' stand for themselves; SQLite decodes the rest.
  std::string uri = "file:";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += c;
    } else {
      uri += fmt::format("%{:02X}", static_cast<unsigned>(u));
    }
  }
  return uri + "?mode=ro";
}

std::string home_dir()
{
  // Python's Path.home(): HOME when set (empty or "/" give "/"), else the passwd entry.
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    return *home != '\0' ? home : "/";
  }
  std::vector<char> buf(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &entry, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "/";
}

std::string default_cache_dir()
{
  if (const char* dir = std::getenv("FLAGGEMS_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return (fs::path(home_dir()) / ".flaggems").string();
}

long long count_tuned_entries(const std::string& db_path)
{
  sqlite3* raw = nullptr;
  const auto uri = sqlite_uri(db_path);
  if (sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    Db db(raw);
    throw Error(
        fmt::format("cannot open the tuner cache {}: {}", db_path, raw ? sqlite3_errmsg(raw) : "out of memory"));
  }
  Db db(raw);
  sqlite3_busy_timeout(db.get(), 2000);
  std::vector<std::string> tables;
  auto list = prepare(db.get(), "SELECT name FROM sqlite_master WHERE type = 'table'", db_path);
  int rc;
  while ((rc = sqlite3_step(list.get())) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(list.get(), 0)));
  }
  if (rc != SQLITE_DONE) {
    throw Error(fmt::format("cannot read the tuner cache {}: {}", db_path, sqlite3_errmsg(db.get())));
  }
  long long total = 0;
  for (const auto& table : tables) {
    // Timing tables hold measurements of candidates, not chosen configs.
    if (table.find("_benchmark_v") != std::string::npos || table.rfind("sqlite_", 0) == 0) {
      continue;
    }
    auto count = prepare(db.get(), "SELECT count(*) FROM " + quote_identifier(table), db_path);
    if (sqlite3_step(count.get()) == SQLITE_ROW) {
      total += sqlite3_column_int64(count.get(), 0);
    }
  }
  return total;
}

TunerCache inspect_tuner_cache(const std::string& dir, const std::string& mode)
{
  TunerCache cache;
  cache.mode = mode;
  cache.path = dir;
  std::vector<std::string> dbs;
  const char* url = std::getenv("FLAGGEMS_DB_URL");
  if (mode == "shared" && url != nullptr && *url != '\0') {
    const std::string u = url;
    if (u.rfind("sqlite:///", 0) != 0 || u == "sqlite:///:memory:") {
      cache.note = fmt::format("FLAGGEMS_DB_URL={} is not a SQLite file; its entries are not counted", u);
      return cache;
    }
    dbs.push_back(u.substr(std::string("sqlite:///").size()));
  } else {
    boost::system::error_code ec;
    for (fs::directory_iterator it(fs::path(dir) / "config_cache", ec), end; !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.rfind("TunedConfig_", 0) == 0 && it->path().extension() == ".db") {
        dbs.push_back(it->path().string());
      }
    }
    std::sort(dbs.begin(), dbs.end());
  }
  long long total = 0;
  for (const auto& db : dbs) {
    if (!fs::exists(db)) {
      continue;
    }
    try {
      total += count_tuned_entries(db);
      cache.databases.push_back(db);
    } catch (const Error& e) {
      cache.note = e.what();
      return cache;
    }
  }
  cache.entries_before = total;
  return cache;
}

} // namespace zl::run
