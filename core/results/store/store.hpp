// The results store: a campaign database in SQLite (the embedded default), with a versioned,
// migrated schema, in WAL mode so that parallel writers lose nothing.
//
// This header is the contract between `zl batch` (which writes as it goes) and the summaries
// (which read). The implementation may add members; it must keep these.
#pragma once

#include "results/model.hpp"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace zl::results::store {

class Store
{
public:
  // Opens the database at path, creating and migrating it as needed. Throws Error naming the
  // file and the fix when it cannot (not a database, a schema newer than this zl, read-only).
  explicit Store(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Ingests one run folder: its run_identity.json into runs, the rows of its run.log (FlagGems'
  // tables) and record.log into rows, its marker lines into markers. Idempotent: ingesting the
  // same folder again replaces its rows. Returns the number of rows stored. A malformed line is
  // reported (file and line number) and skipped, never fatal.
  long long ingest_run(const std::string& run_dir);

  // The median wall time (duration_s) of earlier successful runs of op on backend, for
  // longest-first ordering; nullopt when the store has none.
  std::optional<double> expected_duration(const std::string& backend, const std::string& op) const;

  sqlite3* handle() const;

  // Stores a run already read (zl summary reads the folders once, then stores them), with the
  // same replacement rule as ingest_run. Returns the number of rows stored.
  long long ingest(const Run& run);

  // The runs stored under these paths (absolute, as ingested), in that order; every run, in
  // path order, when paths is empty. Throws Error for a path the store does not hold.
  std::vector<Run> load(const std::vector<std::string>& paths = {}) const;

  // Every run's RunInfo, without its rows, markers or samples: what choosing runs by campaign or
  // caliber needs, at the cost of the runs table alone (a year of nightlies: 13 million rows).
  std::vector<Run> load_infos() const;

  // The runs with a row of one of ops (the rows table's index on op): a history of a few ops
  // reads those runs, not the store.
  std::vector<std::string> paths_with_ops(const std::vector<std::string>& ops) const;

  // Where ingest_run reports malformed lines, as FILE:LINE: reason (default util::out();
  // nullptr: nowhere).
  void set_report_stream(std::ostream* out);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

} // namespace zl::results::store
