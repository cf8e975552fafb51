// How pytest is launched for a plan: a fresh process (zl run, the process executor) or a warm
// worker (core/exec/warm.hpp). The run folder, the record and the identity are the runner's
// (runner.hpp) whichever launches.
#pragma once

#include "loader/registry.hpp"
#include "run/plan.hpp"
#include "util/process.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::util {
class SignalForwarding;
}

namespace zl::run {

// Where a run's output goes besides run.log: zl run's standard output and error, a campaign's
// op log. zl's own lines about the run go to err.
struct Sinks
{
  std::function<void(std::string_view)> out;
  std::function<void(std::string_view)> err;
};

// zl's standard output and error, flushed after each chunk (zl run's sinks).
Sinks standard_sinks();

// Who ran pytest, recorded in the identity (`executor`): the caliber includes it.
struct ExecutorInfo
{
  std::string name = "process";
  std::optional<int> pid;              // the process that ran pytest's session
  std::optional<long long> ops_before; // sessions that process ran before this one
  // What that process imported before the session (a warm worker's preload, ZL_WARM_PRELOAD
  // included): state the session inherited, so on record.
  std::vector<std::string> preloaded;
  // A warm worker's account of the interpreter state the session changed: what it put back to
  // the state of a fresh process (restored), and what it could not, for which it was ended after
  // the session, so that no later op ran in it (recycled).
  std::vector<std::string> restored;
  std::vector<std::string> recycled;
};

// How pytest ended, as the launcher saw it.
struct Launched
{
  util::ProcessResult result;
  // Set when the process that ran pytest died under it (a warm worker): recorded as crashed,
  // with this in the identity's error.
  std::string crash;
  ExecutorInfo executor;
};

class Launcher
{
public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;
  // Runs plan.argv's pytest with child_environment(plan) in plan.run_dir, its output to sinks;
  // ends what it leaves running. Throws util::SpawnFailure when nothing could be started.
  virtual Launched launch(const Plan& plan, const Sinks& sinks) = 0;
};

// A fresh process per run, in its own group, as zl run does: stop signals received by
// `signals` are passed to the group (util::run), orphans are reaped by zl (a subreaper).
class ProcessLauncher : public Launcher
{
public:
  explicit ProcessLauncher(const util::SignalForwarding* signals) : m_signals(signals) {}
  std::string name() const override { return "process"; }
  Launched launch(const Plan& plan, const Sinks& sinks) override;

private:
  const util::SignalForwarding* m_signals;
};

// What zl run does before pytest starts: preflight (throws PreflightError), then the backend
// (select is asked only after preflight passed, so a wrong path fails as a wrong path), the
// plan, the record-log name check.
Plan checked_plan(Request request, const std::function<loader::Selection()>& select);

// checked_plan, then execute: zl run after parsing, and a warm op. A preflight failure prints
// its PREFLIGHT_FAILED marker to sinks.out, the reason to sinks.err, and returns 3.
int run_checked(const Request& request, const std::function<loader::Selection()>& select,
                const std::function<int(const Plan&)>& execute, const Sinks& sinks);

} // namespace zl::run
