// The results store's schema, as the migrations that build it: schema.cpp applies those a
// database lacks. Kept apart from the plumbing so that the schema reads as one piece.
#pragma once

namespace zl::results::store::migrations {

struct Migration
{
  int version;
  const char* sql;
};

// Append only: a database remembers the last version applied, and a new version is a new
// entry that takes it from the previous one.
inline constexpr Migration k_migrations[] = {
    {1, R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,          -- the run folder or log file, absolute
  kind TEXT NOT NULL,                 -- run, log, record
  log_file TEXT,
  record_file TEXT,
  op TEXT,                            -- node.op of the identity, else the tables' ops
  backend TEXT,
  level TEXT,
  timer TEXT,                         -- the run's effective timer
  mode TEXT,
  tuner_cache TEXT,
  status TEXT,
  duration_s REAL,
  device_uuid TEXT,
  device_name TEXT,
  started_at TEXT,
  zl_version TEXT,
  identity TEXT,                      -- run_identity.json as read
  ingested_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX runs_backend_op ON runs (backend, op);
CREATE TABLE rows (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,               -- order in the run
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  size_detail TEXT NOT NULL,
  occurrence INTEGER NOT NULL,        -- earlier rows of the run with the same op, dtype, size_detail
  status TEXT NOT NULL CHECK (status IN ('SUCCESS', 'FAILED')),
  torch_ms REAL,
  gems_ms REAL,
  speedup REAL,
  tflops REAL,
  torch_gbps REAL,
  gems_gbps REAL,
  timer TEXT,                         -- the timer of this row
  fallback INTEGER NOT NULL DEFAULT 0, -- BENCHMARK_DIRECT_NO_CUDAGRAPH: timed directly
  error TEXT,
  source TEXT NOT NULL,               -- table, record, failure_line, test_failure
  line INTEGER
);
CREATE INDEX rows_run ON rows (run_id, seq);
CREATE INDEX rows_op ON rows (op, dtype);
CREATE TABLE markers (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  op TEXT,
  line INTEGER,
  row_seq INTEGER,                    -- rows.seq of the row it concerns, in the same run
  fields TEXT NOT NULL                -- JSON object of its key=value fields
);
CREATE INDEX markers_run ON markers (run_id, seq);
CREATE INDEX markers_name ON markers (name);
)sql"},
    // Every timed sample (issue 31): one row per side of a row that kept them, so that a run read
    // back from the store has what its folder's samples.bin gave it.
    {2, R"sql(
ALTER TABLE runs ADD COLUMN samples_file TEXT;
CREATE TABLE samples (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  row_seq INTEGER NOT NULL,           -- rows.seq of its row, in the same run
  side TEXT NOT NULL CHECK (side IN ('torch', 'gems')),
  n INTEGER NOT NULL,                 -- samples: ms and at_s hold 4 * n bytes each
  stop TEXT NOT NULL,                 -- fixed, converged, max_samples, max_time
  timer TEXT NOT NULL,
  calls INTEGER NOT NULL,
  returned REAL,                      -- what the timer returned; NULL: not a number
  t0 REAL,                            -- Unix time of the first call's start
  stamps_measured INTEGER NOT NULL,
  -- Little-endian float32, as samples.bin has them (nothing is lost): 4 bytes a sample, read
  -- in one piece, where a row per sample would cost its keys and record header several times over.
  ms BLOB NOT NULL,
  at_s BLOB NOT NULL,
  PRIMARY KEY (run_id, row_seq, side)
) WITHOUT ROWID;
)sql"},
    // Schema 3: the device's state. A row timed while telemetry.jsonl said the device was
    // throttled keeps the mark (zl summary --db counts it, --ab leaves it out as from a folder),
    // and a run keeps where its readings are and the first cause. Runs ingested before read none.
    {3, R"sql(
ALTER TABLE rows ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN telemetry_file TEXT;
ALTER TABLE runs ADD COLUMN throttle_cause TEXT;
)sql"},
};

} // namespace zl::results::store::migrations
