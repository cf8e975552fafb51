#include "run/runner.hpp"

#include "results/parse/marker_format.hpp"
#include "results/parse/marker_names.hpp"
#include "run/identity.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/signals.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <zl/version.hpp>

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace zl::run {

namespace fs = boost::filesystem;
using results::OpState;

namespace {

std::string run_header(const Plan& p)
{
  const std::pair<const char*, std::string> fields[] = {
      {"zl_version", k_version},
      {"backend", p.backend->name()},
      {"device", std::to_string(p.device.index)},
      {"uuid", p.device.uuid},
      {"timer", p.timer},
      {"level", p.request.level},
      {"mode", p.request.mode},
      {"tuner_cache", p.tuner_cache.mode},
      {"tuner_entries_before",
       p.tuner_cache.entries_before ? std::to_string(*p.tuner_cache.entries_before) : "unknown"},
      {"autotune", p.autotune_mode},
      {"node", p.node.node},
      {"extra_args", p.request.extra_args.empty() ? "none" : util::join(p.request.extra_args, " ")},
      {"run_dir", p.run_dir}};
  std::string line(results::parse::marker_names::k_zl_run);
  for (const auto& [k, v] : fields) {
    line += fmt::format(" {}={}", k, results::parse::marker_value(v));
  }
  return line + "\n# pytest: PYTEST_ADDOPTS=" + util::shell_quote(pytest_addopts(p.pytest_options)) + " " +
         util::join(p.argv, " ") + "\n";
}

void prepare_folder(const Plan& p)
{
  boost::system::error_code ec;
  if (fs::exists(p.run_dir) && !fs::is_empty(p.run_dir, ec)) {
    throw Error(fmt::format("the run folder {} already holds files; zl does not write over a run: choose another "
                            "--out",
                            p.run_dir));
  }
  util::make_dirs(p.run_dir);
  // The shapes in force, with the level, as the run saw them.
  std::string shapes = fs::exists(p.shape_source) ? util::read_file(p.shape_source) : std::string();
  util::write_file_atomic(p.run_dir + "/shapes.yaml",
                          fmt::format("# zl: shapes in force for this run: level={} source={}\n{}", p.request.level,
                                      p.shape_source, shapes));
  if (p.tuner_cache.mode == "isolated") {
    util::make_dirs(p.tuner_cache.path);
    util::make_dirs(p.run_dir + "/.triton-cache");
  }
}

// The link pytest reaches the node through, to its top folder in the checkout (plan.hpp); gone
// with the run.
class NodeLink
{
public:
  explicit NodeLink(const Plan& p) : m_path(p.node_link)
  {
    const auto target = fs::path(util::absolute(p.request.flaggems_dir)) / fs::path(m_path).filename();
    boost::system::error_code ec;
    fs::create_symlink(target, m_path, ec);
    if (ec) {
      throw Error(fmt::format("cannot link {} to {}: {}", m_path, target.string(), ec.message()));
    }
  }
  ~NodeLink()
  {
    boost::system::error_code ec;
    fs::remove(m_path, ec);
  }
  NodeLink(const NodeLink&) = delete;
  NodeLink& operator=(const NodeLink&) = delete;

private:
  std::string m_path;
};

// FlagGems writes result_<args>.log into pytest's working folder, the run folder; keep it
// under a fixed name.
std::string collect_record_log(const std::string& run_dir)
{
  boost::system::error_code ec;
  for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.rfind("result_", 0) == 0 && it->path().extension() == ".log") {
      fs::rename(it->path(), fs::path(run_dir) / "record.log", ec);
      return ec ? name : "record.log";
    }
  }
  return "";
}

// The identity's status for pytest's exit status: an op state's name, or one only a run has.
std::string status_of(int pytest_exit)
{
  switch (pytest_exit) {
  case 0:
    return std::string(results::name(OpState::ok));
  case 1:
    return std::string(results::name(OpState::failed));
  case 2:
    return std::string(results::name(OpState::interrupted));
  case 4:
    return "usage_error";
  case 5:
    return "no_tests";
  default:
    return "error";
  }
}

// How pytest ended, in the identity and in zl's exit status: stopped by zl (interrupted),
// killed by a signal of its own doing or taking its warm worker with it (crashed), or its own
// exit status.
void record_end(const Launched& l, Outcome& o)
{
  const auto& r = l.result;
  if (r.stop_requested) {
    o.status = results::name(OpState::interrupted);
    o.exit_code = results::exit_code_of(OpState::interrupted);
  } else if (r.term_signal != 0 || !l.crash.empty()) {
    o.status = results::name(OpState::crashed);
    o.exit_code = results::exit_code_of(OpState::crashed);
    o.error = l.crash;
  } else {
    o.status = status_of(r.exit_code);
    o.exit_code = map_pytest_exit(r.exit_code);
  }
  if (r.term_signal != 0) {
    o.signal = util::signal_name(r.term_signal);
  } else if (l.crash.empty()) {
    o.pytest_exit_code = r.exit_code;
  }
  o.executor = l.executor;
}

// Each test's outcome, and the status that follows from them: a run whose only failures are
// FlagGems refusing a dtype is unsupported, not failed.
void read_tests(const Plan& p, const Launched& l, Outcome& o, const Sinks& sinks)
{
  try {
    o.tests = read_outcomes(p.outcomes_file);
  } catch (const Error& e) {
    sinks.err(fmt::format("zl: {}\n", e.what()));
    o.error = e.what();
    return;
  }
  if (o.tests && !l.result.stop_requested && l.crash.empty() && l.result.term_signal == 0) {
    o.status = refine_status(o.status, *o.tests);
  }
}

// What zl had to do, and how pytest ended when it was not by its own exit.
void report_end(const Launched& l, std::chrono::milliseconds grace, const Sinks& sinks)
{
  const auto& r = l.result;
  if (r.killed) {
    sinks.err(fmt::format("zl: pytest's process group did not stop within {:.1f} s; sent SIGKILL\n",
                          static_cast<double>(grace.count()) / 1000));
  }
  if (!l.crash.empty() && !r.stop_requested) {
    sinks.err(fmt::format("zl: {}; the run is recorded as crashed, exit {}\n", l.crash, k_exit_benchmark_signaled));
  } else if (r.term_signal != 0 && !r.stop_requested) {
    sinks.err(fmt::format("zl: pytest was killed by {} (signal {}); the run is recorded as crashed, exit {}\n",
                          util::signal_name(r.term_signal), r.term_signal, k_exit_benchmark_signaled));
  }
  if (r.leftovers > 0) {
    sinks.err(fmt::format("zl: ended {} process(es) the benchmark left running\n", r.leftovers));
  }
}

} // namespace

int map_pytest_exit(int pytest_exit)
{
  return pytest_exit == 2 || pytest_exit == 3 ? 10 + pytest_exit : pytest_exit;
}

int execute(const Plan& p)
{
  // From here to the identity's last write: a stop signal must not end zl before it records
  // what happened, nor a reader of zl's output that went away (SIGPIPE, ignored meanwhile).
  util::SignalForwarding forwarding;
  ProcessLauncher launcher(&forwarding);
  return execute(p, launcher, standard_sinks(), [&forwarding] { return forwarding.count() > 0; });
}

int execute(const Plan& p, Launcher& launcher, const Sinks& sinks, const std::function<bool()>& stopped)
{
  prepare_folder(p);
  const NodeLink link(p);
  Outcome outcome;
  outcome.executor.name = launcher.name();
  outcome.started_at = utc_now();
  const auto commit = flaggems_commit(p.request.flaggems_dir);
  util::write_file_atomic(p.plan_path, plan_json(p));
  const auto identity_path = p.run_dir + "/" + k_identity_file;
  util::write_file_atomic(identity_path, identity_json(p, outcome, "", commit));

  std::FILE* log = std::fopen((p.run_dir + "/run.log").c_str(), "w");
  if (log == nullptr) {
    throw Error(fmt::format("cannot write {}/run.log", p.run_dir));
  }
  const auto header = run_header(p);
  std::fputs(header.c_str(), log);
  sinks.out(header);

  auto tee = [log](const std::function<void(std::string_view)>& sink) {
    return [log, &sink](std::string_view chunk) {
      std::fwrite(chunk.data(), 1, chunk.size(), log);
      std::fflush(log);
      sink(chunk);
    };
  };
  const auto start = std::chrono::steady_clock::now();
  Launched launched;
  if (stopped()) {
    // Stopped before pytest started: start nothing, say so.
    std::fclose(log);
    outcome.finished_at = utc_now();
    outcome.status = results::name(OpState::interrupted);
    outcome.exit_code = results::exit_code_of(OpState::interrupted);
    outcome.error = "stopped before pytest started";
    util::write_file_atomic(identity_path, identity_json(p, outcome, "", commit));
    sinks.err("zl: stopped before pytest started\n");
    return k_exit_interrupted;
  }
  TelemetryRecorder telemetry(*p.backend, p.device, p.telemetry, p.telemetry_file);
  try {
    launched = launcher.launch(p, {tee(sinks.out), tee(sinks.err)});
  } catch (const util::SpawnFailure& e) {
    std::fclose(log);
    outcome.status = "error";
    outcome.error = e.message;
    outcome.exit_code = k_exit_usage;
    util::write_file_atomic(identity_path, identity_json(p, outcome, "", commit));
    throw Error(fmt::format("{}; pass --python with an interpreter that has pytest", e.message));
  }
  std::fclose(log);

  outcome.finished_at = utc_now();
  outcome.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.telemetry = telemetry.finish();
  record_end(launched, outcome);
  read_tests(p, launched, outcome, sinks);
  report_end(launched, util::stop_grace(), sinks);
  outcome.record_log = collect_record_log(p.run_dir);
  if (p.autotune_mode != "off") {
    outcome.autotune = tally_autotune(util::read_file(p.run_dir + "/run.log", util::k_log_limit));
  }
  if (p.tuner_cache.mode == "isolated") {
    boost::system::error_code ec;
    fs::remove_all(p.tuner_cache.path, ec);
    fs::remove_all(p.run_dir + "/.triton-cache", ec);
  }
  std::string versions;
  if (fs::exists(p.versions_file)) {
    versions = util::read_file(p.versions_file);
  }
  util::write_file_atomic(identity_path, identity_json(p, outcome, versions, commit));
  return *outcome.exit_code;
}

} // namespace zl::run
