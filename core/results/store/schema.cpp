#include "results/store/schema.hpp"

#include "results/store/migrations.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <boost/filesystem.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace zl::results::store {

namespace {

int user_version(const Db& db)
{
  auto s = db.prepare("PRAGMA user_version");
  if (sqlite3_step(s.get()) != SQLITE_ROW) {
    db.fail("reading its schema version");
  }
  return sqlite3_column_int(s.get(), 0);
}

} // namespace

int schema_version()
{
  return migrations::k_migrations[std::size(migrations::k_migrations) - 1].version;
}

void bind_arg(sqlite3_stmt* s, int i, std::string_view v)
{
  // An empty view may have no data pointer, which SQLite binds as NULL: a row without a dtype
  // (pytest's FAILED line) would then break the NOT NULL columns.
  sqlite3_bind_text(s, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()), SQLITE_STATIC);
}
void bind_arg(sqlite3_stmt* s, int i, double v)
{
  std::isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
}
void bind_arg(sqlite3_stmt* s, int i, long long v)
{
  sqlite3_bind_int64(s, i, v);
}
void bind_arg(sqlite3_stmt* s, int i, const std::optional<double>& v)
{
  v ? sqlite3_bind_double(s, i, *v) : sqlite3_bind_null(s, i);
}

std::string_view column_text(sqlite3_stmt* s, int i)
{
  const auto* p = sqlite3_column_text(s, i);
  return p == nullptr
             ? std::string_view()
             : std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
}
double column_real(sqlite3_stmt* s, int i)
{
  return sqlite3_column_type(s, i) == SQLITE_NULL ? std::numeric_limits<double>::quiet_NaN()
                                                  : sqlite3_column_double(s, i);
}

void StmtFinalizer::operator()(sqlite3_stmt* s) const
{
  sqlite3_finalize(s);
}

Db::Db(const std::string& path) : m_path(path)
{
  // A store the user may read but not write (its file or folder): opened read-only, so that a
  // summary of it works; a write then fails naming the file.
  (void)util::absolute(path); // a relative path with the working folder gone: say so
  struct stat st
  {
  };
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(fmt::format("the results store {} is not a regular file (mode {:06o}); give --db a file",
                            util::printable(path), st.st_mode));
  }
  const auto folder = boost::filesystem::path(path).parent_path().string();
  m_read_only = ::access(path.c_str(), F_OK) == 0 &&
                (::access(path.c_str(), W_OK) != 0 || ::access(folder.empty() ? "." : folder.c_str(), W_OK) != 0);
  if (m_read_only) {
    open_read_only();
    return;
  }
  if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    throw Error(fmt::format("cannot open the results store {}: {}; check the path and its folder's permissions", path,
                            message));
  }
  sqlite3_extended_result_codes(m_db, 1);
  sqlite3_busy_timeout(m_db, 60000);
  try {
    // Switching to WAL needs a moment without other connections' locks; the busy handler does
    // not cover every case of it, so retry a while.
    for (int attempt = 0;; ++attempt) {
      const int rc = sqlite3_exec(m_db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) {
        break;
      }
      if ((rc & 0xFF) != SQLITE_BUSY && (rc & 0xFF) != SQLITE_LOCKED) {
        fail("switching to WAL mode");
      }
      if (attempt == 600) {
        fail("switching to WAL mode (busy for a minute)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    exec("PRAGMA foreign_keys=ON");
    exec("PRAGMA synchronous=NORMAL");
  } catch (...) {
    sqlite3_close(m_db);
    throw;
  }
}

void Db::open_read_only()
{
  // A URI, for its parameters; the path's own '%', '?' and '#' are escaped.
  std::string uri = "file:";
  const auto absolute = util::absolute(m_path);
  for (const char c : absolute) {
    uri += c == '%' || c == '?' || c == '#' ? fmt::format("%{:02X}", static_cast<unsigned char>(c)) : std::string(1, c);
  }
  // A WAL store whose -shm cannot be created beside it can only be read as immutable.
  for (const char* params : {"?mode=ro", "?mode=ro&immutable=1"}) {
    sqlite3_close(m_db);
    m_db = nullptr;
    if (sqlite3_open_v2((uri + params).c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK &&
        sqlite3_exec(m_db, "PRAGMA user_version", nullptr, nullptr, nullptr) == SQLITE_OK) {
      sqlite3_extended_result_codes(m_db, 1);
      sqlite3_busy_timeout(m_db, 60000);
      return;
    }
  }
  const std::string message = m_db != nullptr ? sqlite3_errmsg(m_db) : "out of memory";
  sqlite3_close(m_db);
  m_db = nullptr;
  throw Error(fmt::format("cannot open the results store {} (read-only: you cannot write it or its folder): {}", m_path,
                          message));
}

Db::~Db()
{
  sqlite3_close(m_db);
}

void Db::fail(std::string_view what) const
{
  const int rc = sqlite3_extended_errcode(m_db) & 0xFF;
  const std::string message = sqlite3_errmsg(m_db);
  if (rc == SQLITE_NOTADB) {
    throw Error(fmt::format("{} is not a zl results store (SQLite: {}); give --db a new file, or move this one away",
                            m_path, message));
  }
  if (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN || rc == SQLITE_PERM) {
    throw Error(fmt::format("cannot write the results store {} ({}: {}); check the permissions of the file and its "
                            "folder (WAL mode writes {}-wal and {}-shm beside it), or give --db another file",
                            m_path, what, message, m_path, m_path));
  }
  throw Error(fmt::format("results store {}: {} failed: {}", m_path, what, message));
}

void Db::exec(const std::string& sql) const
{
  if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail(sql.substr(0, sql.find_first_of("(\n")));
  }
}

Stmt Db::prepare(const std::string& sql) const
{
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    fail("preparing " + sql.substr(0, 40));
  }
  return Stmt(raw);
}

void Db::step_done(sqlite3_stmt* s) const
{
  if (sqlite3_step(s) != SQLITE_DONE) {
    fail("writing");
  }
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
}

void Db::migrate() const
{
  auto refuse_newer = [&](int version) {
    if (version > schema_version()) {
      throw Error(fmt::format("the results store {} has schema version {}, newer than this zl knows ({}); use a "
                              "newer zl, or give --db another file",
                              m_path, version, schema_version()));
    }
  };
  // Version and tables are read in one snapshot: between two autocommit reads another process
  // may commit its migration, and a fresh store would look like a foreign one (seen in CI with
  // eight parallel `zl summary --db`).
  int seen = 0;
  bool foreign = false;
  exec("BEGIN");
  try {
    seen = user_version(*this);
    foreign = seen == 0 && has_tables();
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
  refuse_newer(seen);
  if (seen == schema_version()) {
    check_tables();
    return;
  }
  if (foreign) {
    throw not_a_store();
  }
  if (m_read_only) {
    throw Error(fmt::format("the results store {} has schema version {} and needs migrating to {}, but you cannot "
                            "write it or its folder; ask its owner to run zl on it, or copy it",
                            m_path, seen, schema_version()));
  }
  Transaction t(*this);
  // Read again under the write lock: another process may have migrated meanwhile.
  const int version = user_version(*this);
  refuse_newer(version);
  if (version == schema_version()) {
    t.commit();
    check_tables();
    return;
  }
  if (version == 0 && has_tables()) {
    throw not_a_store();
  }
  for (const auto& m : migrations::k_migrations) {
    // One that does not apply (no such table, a table already there) met a database whose
    // tables are not those of its version; an I/O error or a full disk is said as it is.
    if (m.version > version && sqlite3_exec(m_db, m.sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      if ((sqlite3_extended_errcode(m_db) & 0xFF) == SQLITE_ERROR) {
        throw not_a_store();
      }
      fail(fmt::format("migrating to schema version {}", m.version));
    }
  }
  exec(fmt::format("PRAGMA user_version = {}", schema_version()));
  check_tables(); // before the commit: a database that is not a store is rolled back untouched
  t.commit();
}

Error Db::not_a_store() const
{
  return Error(fmt::format("{} is not a zl results store (or one zl cannot migrate): its tables are not the ones zl "
                           "writes; give --db a new file, or move this one away",
                           m_path));
}

bool Db::has_tables() const
{
  auto s = prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  return sqlite3_step(s.get()) == SQLITE_ROW && sqlite3_column_int(s.get(), 0) > 0;
}

void Db::check_tables() const
{
  // Every column zl reads or writes: a store of another program that set user_version, or one
  // edited by hand, is refused here rather than by SQLite's raw text later.
  for (const char* sql :
       {"SELECT id, path, kind, log_file, record_file, op, backend, level, timer, mode, tuner_cache, status, "
        "duration_s, device_uuid, device_name, started_at, zl_version, identity, samples_file, telemetry_file, "
        "throttle_cause FROM runs LIMIT 0",
        "SELECT run_id, seq, op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, speedup, tflops, "
        "torch_gbps, gems_gbps, timer, fallback, error, source, line, throttled FROM rows LIMIT 0",
        "SELECT run_id, seq, name, op, line, row_seq, fields FROM markers LIMIT 0",
        "SELECT run_id, row_seq, side, n, stop, timer, calls, returned, t0, stamps_measured, ms, at_s FROM samples "
        "LIMIT 0"}) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(m_db, sql, -1, &raw, nullptr);
    sqlite3_finalize(raw);
    if (rc != SQLITE_OK) {
      throw not_a_store();
    }
  }
}

Transaction::Transaction(const Db& db) : m_db(db)
{
  m_db.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction()
{
  if (!m_done) {
    sqlite3_exec(m_db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit()
{
  m_db.exec("COMMIT");
  m_done = true;
}

} // namespace zl::results::store
