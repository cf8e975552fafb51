// The results store's schema: an ordered list of migrations, the version in PRAGMA
// user_version, and the SQLite plumbing the store is written with.
#pragma once

#include "util/error.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace zl::results::store {

// The schema this zl writes; a database at a higher version was written by a newer zl.
int schema_version();

struct StmtFinalizer
{
  void operator()(sqlite3_stmt* s) const;
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

// A connection with the file it is for, so that every error names it.
class Db
{
public:
  // Opens (creating) path, in WAL mode with a generous busy timeout: several `zl batch`
  // workers and summaries write one database at once.
  explicit Db(const std::string& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return m_db; }
  const std::string& path() const { return m_path; }

  void exec(const std::string& sql) const;
  Stmt prepare(const std::string& sql) const;
  // Runs a statement to completion (bindings already done), then resets it.
  void step_done(sqlite3_stmt* s) const;
  // Throws Error naming the file, what was being done, SQLite's message and a fix.
  [[noreturn]] void fail(std::string_view what) const;

  // Brings the schema up to schema_version() inside one immediate transaction; refuses a
  // database whose version is newer.
  void migrate() const;

  // Whether it was opened read-only (the user cannot write the file or its folder).
  bool read_only() const { return m_read_only; }

private:
  void open_read_only();
  bool has_tables() const;
  void check_tables() const;
  Error not_a_store() const;

  sqlite3* m_db = nullptr;
  std::string m_path;
  bool m_read_only = false;
};

// Binding parameters (not "bind": with a std::string argument, argument-dependent lookup would
// pick std::bind). A NaN double (k_na) and an empty optional bind NULL; an empty view binds "".
void bind_arg(sqlite3_stmt* s, int i, std::string_view v);
void bind_arg(sqlite3_stmt* s, int i, double v);
void bind_arg(sqlite3_stmt* s, int i, long long v);
void bind_arg(sqlite3_stmt* s, int i, const std::optional<double>& v);
// Reading columns: NULL reads as "" and as NaN (k_na).
std::string_view column_text(sqlite3_stmt* s, int i);
double column_real(sqlite3_stmt* s, int i);

// BEGIN IMMEDIATE … COMMIT, rolled back when the scope is left by an exception. Immediate:
// a writer takes the write lock up front, so two writers wait for each other (busy timeout)
// instead of deadlocking on a lock upgrade.
class Transaction
{
public:
  explicit Transaction(const Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

private:
  const Db& m_db;
  bool m_done = false;
};

} // namespace zl::results::store
