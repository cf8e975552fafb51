// zl run and zl plan: one benchmark node through pytest, and the same decisions without running.
#include "output.hpp"

#include "run/launch.hpp"
#include "run/plan.hpp"
#include "run/preflight.hpp"
#include "run/runner.hpp"
#include "run/sampling.hpp"
#include "run/telemetry.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_run_usage =
    "zl [--backend NAME] run --flaggems DIR (--op OP [--op-file FILE] | --op-file FILE | --test-node NODE)\n"
    "        [--level core|comprehensive] [--mode kernel|operator|wrapper|cudagraph] [--dtypes LIST]\n"
    "        [--timer auto|graph|direct|profiler] [--sampling SPEC] [--telemetry SPEC]\n"
    "        [--device INDEX|UUID]\n"
    "        [--shape-file FILE | --shape-mode upstream] [--record-autotune | --replay-from DIR]\n"
    "        [--isolate-tuner-cache] [--out DIR] [--python PATH] [-- EXTRA-PYTEST-ARGS]";

constexpr const char* k_run_notes =
    R"(Each option falls back to a variable of the earlier harness when absent: FLAGGEMS_DIR,
OP, OP_FILE, TEST_NODE, BENCH_LEVEL, SHAPE_FILE, SHAPE_MODE, REPLAY_FROM,
ZL_ISOLATE_TUNER_CACHE=1, ZL_PYTHON, ZL_SAMPLING, ZL_TELEMETRY. Options win over variables.
--op with --op-file (or OP with OP_FILE) runs that op inside that file, as the earlier harness
did; --test-node stands alone and may be absolute inside the FlagGems folder. --mode cudagraph
needs a backend that captures.

Arguments after -- go to pytest and are recorded (pytest_extra_args), but never those that
change what zl sets and records: --mode, --level, --dtypes, --shape_file, --record, -p, -m, -k,
test paths, --rootdir, -c, -o/--override-ini, --confcutdir, --query, --parallel, --capture,
xdist's -n are refused (exit 2) naming the zl option to use. PYTEST_ADDOPTS and PYTEST_PLUGINS
do not reach pytest.

Before pytest starts, zl checks flaggems_dir, benchmark_file, shape_file (it must hold the
op's key, or a class key of its benchmark, with a shapes list), replay_from, python and
record_log (FlagGems' record-log name must fit 255 bytes), in that order; a failure prints
PREFLIGHT_FAILED check=<name> and exits 3.
pytest's exit status passes through (0 passed, 1 failed, 4 usage, 5 no tests), except 2 and 3,
which become 12 and 13 so they cannot pass for zl's own 2 and 3. pytest killed by a signal
(SIGSEGV, SIGABRT, ...) exits 14; zl names the signal and the identity records it.

Stopping: Ctrl-C (or SIGTERM, SIGHUP) goes to pytest's whole process group; SIGKILL follows
after a grace period of 10 s (ZL_STOP_GRACE_S overrides it), at once on a second Ctrl-C; zl
exits 130 and the identity says interrupted. When pytest exits, what it left running (in its
process group, or escaped by setsid or a double fork) gets SIGTERM, the grace period, SIGKILL.
If zl dies, pytest gets SIGKILL.

The run folder (--out, default runs/<UTC time>-<op>-<backend>/) holds run.log, plan.json,
run_identity.json, shapes.yaml, FlagGems' record log (record.log) and samples.bin: every timed
sample of every row, with when it was taken (docs/plan-file.md), in kernel mode.

--sampling: by default each row is sampled again on the warm device until the 95% interval of
its median is within 0.5% of it (at least 10 samples; at most 100,000 samples or 1 s a row);
the row's latency is then the benchmark's statistic (the median) over all of them. "fixed"
makes one timing call per row, as the benchmark does. zl summary shows each row's n, median and
noise; its --ab gives verdicts from one run a side (docs/statistics.md).

--telemetry: zl reads the device's state through the backend (clocks and their maxima, whether
they are locked, temperature, power and its limit, throttle reasons, ECC, MIG, driver) before
pytest starts, every 0.5 s while it runs (less often where the backend's tool is slow to answer:
the reads take at most a tenth of a core) and after it ends, into telemetry.jsonl; the identity
summarizes them (telemetry). A row timed while a reading said the device was throttled (a reason
other than idle, or the SM clock under 90% of its locked or maximum value) is marked so in zl
summary. "around" reads before and after only; "off" reads nothing. `zl devices --telemetry`
shows one reading now.

--record-autotune stores each autotuner's chosen config per key (Triton's Autotuner, FlagGems'
LibTuner) in autotune_records/ of the run folder. --replay-from DIR (a run folder or its
autotune_records/) pins them before the first launch; a key it cannot pin self-tunes under
AUTOTUNE_REPLAY_FALLBACK. Record with --isolate-tuner-cache for honest cold tuning: a shared
tuner cache hands over earlier winners, which are then recorded as "cached", not "tuned".

Examples:
  zl run --flaggems corpus --op abs
  zl --backend=cuda run --flaggems ~/FlagGems --op mm --level comprehensive --timer graph
  zl run --flaggems ~/FlagGems --test-node benchmark/test_abs.py::test_abs -- -x
)";

std::string sampling_help()
{
  return fmt::format("{} (default {})", run::k_sampling_help, run::k_sampling_default);
}

std::string telemetry_help()
{
  return fmt::format("{} (default {}; else ZL_TELEMETRY)", run::k_telemetry_help, run::k_telemetry_default);
}

// Parses run/plan options into a Request; nullopt after --help.
std::optional<run::Request> parse_request(const std::string& command, const Args& all_args, bool& json)
{
  Args args = all_args;
  run::Request r;
  if (auto dashes = std::find(args.begin(), args.end(), "--"); dashes != args.end()) {
    r.extra_args.assign(dashes + 1, args.end());
    args.erase(dashes, args.end());
  }
  po::options_description desc("Options");
  desc.add_options()(
      "flaggems", po::value<std::string>(),
      "FlagGems checkout (else FLAGGEMS_DIR, else the working folder if it holds benchmark/conftest.py)")(
      "op", po::value<std::string>(), "operator: benchmark/test_<op>.py, else the module that marks or names it")(
      "op-file", po::value<std::string>(), "benchmark module to run whole; with --op, that op inside it")(
      "test-node", po::value<std::string>(), "pytest node id, relative to the FlagGems folder or absolute inside it")(
      "level", po::value<std::string>(), "core (default) or comprehensive")(
      "mode", po::value<std::string>(), "kernel (default), operator, wrapper or cudagraph")(
      "dtypes", po::value<std::string>(), "comma list: float16,float32,bfloat16,int16,int32,bool,complex64")(
      "timer", po::value<std::string>(), "auto (default: graph where the backend captures), graph, direct, profiler")(
      "sampling", po::value<std::string>(), sampling_help().c_str())(
      "telemetry", po::value<std::string>(), telemetry_help().c_str())("device", po::value<std::string>(),
                                                                       "device index or UUID (default: the first)")(
      "shape-file", po::value<std::string>(), "shapes YAML to use instead of benchmark/core_shapes.yaml")(
      "shape-mode", po::value<std::string>(), "upstream: FlagGems' own core_shapes.yaml (the default)")(
      "replay-from", po::value<std::string>(), "autotune records to pin: a run folder or its autotune_records/")(
      "record-autotune", "store each autotuner's chosen config per key in <run folder>/autotune_records/")(
      "isolate-tuner-cache", "own FLAGGEMS_CACHE_DIR and TRITON_CACHE_DIR, removed afterwards")(
      "out", po::value<std::string>(), "run folder (default runs/<UTC time>-<op>-<backend>/)")(
      "python", po::value<std::string>(), "interpreter that runs pytest (else ZL_PYTHON, else python3)");
  if (command == "plan") {
    desc.add_options()("json", "print the plan as JSON");
  }
  std::string usage = k_run_usage;
  if (command == "plan") {
    usage.replace(usage.find(" run "), 5, " plan ");
    usage += " [--json]";
  }
  const auto vm = parse_options(command, usage + "\n\n" + k_run_notes, desc, args);
  if (!vm) {
    return std::nullopt;
  }
  auto given = [&](const char* option) {
    return vm->count(option) ? std::optional((*vm)[option].as<std::string>()) : std::nullopt;
  };
  auto get = [&](const char* option, const char* variable) { return run::option_or(given(option), variable); };
  json = vm->count("json") > 0;
  run::apply_options(r, {given("flaggems"), given("level"), given("shape-file"), given("shape-mode"),
                         given("replay-from"), given("python"), vm->count("isolate-tuner-cache") > 0});
  r.op = get("op", "OP");
  r.op_file = get("op-file", "OP_FILE");
  r.test_node = get("test-node", "TEST_NODE");
  // An option given on the command line silences the variables of the other two forms.
  if (vm->count("op") || vm->count("op-file") || vm->count("test-node")) {
    r.op = get("op", nullptr), r.op_file = get("op-file", nullptr), r.test_node = get("test-node", nullptr);
  }
  r.mode = vm->count("mode") ? (*vm)["mode"].as<std::string>() : "kernel";
  r.dtypes = util::split(get("dtypes", nullptr), ',');
  r.timer = vm->count("timer") ? (*vm)["timer"].as<std::string>() : "auto";
  r.sampling = get("sampling", "ZL_SAMPLING");
  r.telemetry = get("telemetry", "ZL_TELEMETRY");
  r.device = get("device", nullptr);
  r.record_autotune = vm->count("record-autotune") > 0;
  r.out_dir = get("out", nullptr);
  run::validate(r);
  return r;
}

run::Plan plan_for(Context& ctx, run::Request request)
{
  request.command_line = ctx.command_line;
  return run::checked_plan(request, [&ctx] { return ctx.select_backend(); });
}

int report_preflight(const run::PreflightError& e)
{
  std::cout << e.marker() << std::endl;
  std::cerr << "zl: preflight failed: " << e.what() << "\n";
  return e.exit_code();
}

} // namespace

int cmd_run(Context& ctx, const Args& args)
{
  bool json = false;
  auto request = parse_request("run", args, json);
  if (!request) {
    return 0;
  }
  request->command_line = ctx.command_line;
  return run::run_checked(
      *request, [&ctx] { return ctx.select_backend(); }, [](const run::Plan& plan) { return run::execute(plan); },
      run::standard_sinks());
}

int cmd_plan(Context& ctx, const Args& args)
{
  bool json = false;
  auto request = parse_request("plan", args, json);
  if (!request) {
    return 0;
  }
  run::Plan plan;
  try {
    plan = plan_for(ctx, *request);
  } catch (const run::PreflightError& e) {
    return report_preflight(e);
  }
  if (json) {
    std::cout << run::plan_json(plan);
    return 0;
  }
  std::cout << fmt::format("backend  {} ({})\n", plan.backend->name(), plan.backend_how);
  std::cout << fmt::format("device   {} {} ({})\n", plan.device.index, plan.device.uuid, plan.device.name);
  std::cout << fmt::format("node     {}{}  [{}]\n", plan.node.node,
                           plan.node.marker.empty() ? "" : " -m " + plan.node.marker, plan.node.how);
  std::cout << fmt::format("timer    {} ({})\n", plan.timer, plan.timer_reason);
  std::cout << fmt::format("level    {}   mode {}\n", plan.request.level, plan.request.mode);
  std::cout << fmt::format("shapes   {}\n", plan.shape_source);
  std::cout << fmt::format("tuner    {} cache at {} ({} entries)\n", plan.tuner_cache.mode, plan.tuner_cache.path,
                           plan.tuner_cache.entries_before ? std::to_string(*plan.tuner_cache.entries_before)
                                                           : "unknown: " + plan.tuner_cache.note);
  if (plan.autotune_mode != "off") {
    std::cout << fmt::format("autotune {} {}\n", plan.autotune_mode,
                             plan.autotune_mode == "replay" ? "from " + plan.autotune_source
                                                            : "into " + plan.autotune_records);
  }
  std::cout << "plugins  -p " << util::join(plan.plugins, " -p ") << "\n";
  std::cout << "env      ";
  for (const auto& [k, v] : plan.env_set) {
    std::cout << k << "=" << (v.find_first_of(" '\"") == std::string::npos ? v : util::shell_quote(v)) << " ";
  }
  for (const auto& k : plan.env_unset) {
    std::cout << "-" << k << " ";
  }
  std::cout << "\nrun dir  " << plan.run_dir << "\n";
  std::cout << "command  " << util::join(plan.argv, " ") << "\n";
  std::cout << fmt::format("         (in the run folder; {} there links to the checkout's; zl's own pytest options "
                           "are in PYTEST_ADDOPTS, so FlagGems' record-log name is a plain session's)\n",
                           boost::filesystem::path(plan.node_link).filename().string());
  return 0;
}

} // namespace zl::cli
