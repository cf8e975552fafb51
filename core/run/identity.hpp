// run_identity.json: what a run measured and how, so that two runs of different caliber can be
// told apart from their folders alone.
#pragma once

#include "run/autotune_log.hpp"
#include "run/identity_record.hpp"
#include "run/launch.hpp"
#include "run/outcomes.hpp"
#include "run/plan.hpp"
#include "run/telemetry.hpp"

#include <optional>
#include <string>

namespace zl::run {

struct Outcome
{
  std::string status = "running";      // running, ok, failed, unsupported, skipped, no_tests, usage_error, interrupted,
                                       // crashed, error
  std::optional<int> exit_code;        // zl's
  std::optional<int> pytest_exit_code; // pytest's own; none when a signal ended it
  std::string signal;                  // the signal that ended pytest (SIGSEGV), if one did
  std::string started_at;              // UTC, ISO 8601
  std::string finished_at;
  std::optional<double> duration_s;
  std::string record_log;                    // FlagGems' record log in the run folder, if any
  std::string error;                         // what went wrong outside pytest
  std::optional<AutotuneTally> autotune;     // read from run.log after a record or replay run
  ExecutorInfo executor;                     // who ran pytest: part of the caliber
  std::optional<TestOutcomes> tests;         // how each test ended, from zl_identity
  std::optional<TelemetrySummary> telemetry; // the device's state around the run
};

// FlagGems' git commit: `git rev-parse HEAD` in the folder, else a FLAGGEMS_COMMIT file there.
std::string flaggems_commit(const std::string& flaggems_dir);

// The identity document, which read_identity (run/identity_record.hpp) reads back. versions_json
// is what zl_identity wrote (may be empty).
std::string identity_json(const Plan& plan, const Outcome& outcome, const std::string& versions_json,
                          const std::string& commit);

// The current UTC time as 2026-12-02T08:44:00Z.
std::string utc_now();

} // namespace zl::run
