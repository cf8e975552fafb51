// zl batch: a campaign of many ops over the devices of one host.
#include "output.hpp"

#include "batch/campaign.hpp"
#include "devices/select.hpp"
#include "results/store.hpp"
#include "run/preflight.hpp"
#include "run/request.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>

namespace zl::cli {

namespace {

namespace fs = boost::filesystem;

constexpr const char* k_usage =
  "zl [--backend NAME] batch --flaggems DIR (--ops a,b,c | --ops-file FILE | --all)\n"
  "        [--devices 0,1|UUID,...|all] [--gpus ...] [--out DIR] [--resume] [--timeout-per-op S]\n"
  "        [--level ...] [--mode ...] [--dtypes ...] [--timer ...] [--shape-file F | --shape-mode upstream]\n"
  "        [--replay-from DIR] [--isolate-tuner-cache] [--python PATH]\n\n"
  "Runs each op as its own `zl run` (the same code path), one op per device at a time, each pinned\n"
  "with the backend's visibility variable; longest expected first, from durations already in the\n"
  "campaign's results store. After each op, ops_status.csv is rewritten atomically and the run\n"
  "folder is ingested into results.sqlite. At the end: the makespan against the ideal.\n\n"
  "The campaign folder (--out, default campaigns/<UTC time>-<backend>/) holds ops_status.csv,\n"
  "results.sqlite, logs/<op>.log (what each `zl run` printed) and one run folder per op.\n"
  "--resume re-runs only the ops whose status is not ok; an op's earlier folder is kept as\n"
  "<op>.attempt-N. Ctrl-C (or SIGTERM) starts nothing new, interrupts the running ops and exits 130.\n\n"
  "Statuses: ok, failed, preflight_failed, no_rows, timeout, interrupted, crashed; pending for an op\n"
  "never started. Exit status: 0 every op ok, 1 some op not ok, 2 usage, 3 preflight, 130 interrupted.\n\n"
  "Examples:\n"
  "  zl batch --flaggems corpus --ops abs,add,mm\n"
  "  zl --backend=cuda batch --flaggems ~/FlagGems --ops-file ops.txt --devices all --timeout-per-op 900\n"
  "  zl batch --flaggems ~/FlagGems --all --out campaigns/nightly --resume\n"
  "  zl batch --flaggems ~/FlagGems --all --db ~/zl-results.sqlite   (longest-first from past campaigns)";

// Options handed unchanged to each `zl run`.
const char* const k_forwarded_values[] = {"level", "mode", "dtypes", "timer", "shape-file", "shape-mode",
                                          "replay-from", "python"};

std::vector<std::string> read_ops_file(const std::string& path)
{
  std::vector<std::string> ops;
  const auto text = util::read_file(path);
  int n = 0;
  for (const auto& raw : util::split(text, '\n', false)) {
    ++n;
    const auto line = std::string(util::trim(raw.substr(0, raw.find('#'))));
    if (line.empty()) {
      continue;
    }
    if (!util::is_identifier(line)) {
      throw Error(fmt::format("{}:{}: '{}' is not an op name ([a-z0-9_]+)", path, n, line));
    }
    ops.push_back(line);
  }
  return ops;
}

} // namespace

int cmd_batch(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()
    ("flaggems", po::value<std::string>(), "FlagGems checkout (else FLAGGEMS_DIR)")
    ("ops", po::value<std::string>(), "comma list of ops")
    ("ops-file", po::value<std::string>(), "one op per line; # starts a comment")
    ("all", "every benchmark/test_<op>.py")
    ("devices", po::value<std::string>(), "device indices or UUIDs, comma list, or all (default): all means every "
                                          "device the inherited visibility mask leaves visible; a device outside "
                                          "it, an empty list and one device named twice are refused")
    ("gpus", po::value<std::string>(), "the same as --devices")
    ("out", po::value<std::string>(), "campaign folder (default campaigns/<UTC time>-<backend>/)")
    ("resume", "re-run only the ops of the campaign folder whose status is not ok")
    ("db", po::value<std::string>(), "results store (default <out>/results.sqlite); share one across campaigns "
                                     "so that later ones order ops by the durations earlier ones saw")
    ("timeout-per-op", po::value<double>(), "seconds before an op is stopped and recorded as timeout")
    ("level", po::value<std::string>(), "forwarded to zl run")
    ("mode", po::value<std::string>(), "forwarded to zl run")
    ("dtypes", po::value<std::string>(), "forwarded to zl run")
    ("timer", po::value<std::string>(), "forwarded to zl run")
    ("shape-file", po::value<std::string>(), "forwarded to zl run")
    ("shape-mode", po::value<std::string>(), "forwarded to zl run")
    ("replay-from", po::value<std::string>(), "forwarded to zl run")
    ("isolate-tuner-cache", "forwarded to zl run")
    ("python", po::value<std::string>(), "forwarded to zl run");
  const auto vm = parse_options("batch", k_usage, desc, args);
  if (!vm) {
    return 0;
  }
  auto value = [&](const char* name) { return vm->count(name) ? (*vm)[name].as<std::string>() : std::string(); };
  const int sources = static_cast<int>(vm->count("ops") + vm->count("ops-file") + vm->count("all"));
  if (sources != 1) {
    throw Error("say which ops: exactly one of --ops, --ops-file and --all");
  }
  std::string flaggems = value("flaggems");
  if (flaggems.empty() && std::getenv("FLAGGEMS_DIR") != nullptr) {
    flaggems = std::getenv("FLAGGEMS_DIR");
  }
  if (vm->count("devices") && vm->count("gpus")) {
    throw Error("--gpus is another name for --devices: give one of them");
  }
  // The forwarded options are checked here, once, before any op starts.
  run::Request check;
  check.op = "batch";
  check.level = vm->count("level") ? value("level") : "core";
  check.mode = vm->count("mode") ? value("mode") : "kernel";
  check.timer = vm->count("timer") ? value("timer") : "auto";
  check.dtypes = util::split(value("dtypes"), ',');
  run::validate(check);
  try {
    run::preflight({flaggems, "--flaggems", "benchmark/conftest.py", "the FlagGems folder's conftest", "", "",
                    vm->count("python") ? value("python") : (std::getenv("ZL_PYTHON") ? std::getenv("ZL_PYTHON") : "python3")});
  } catch (const run::PreflightError& e) {
    std::cout << e.marker() << std::endl;
    std::cerr << "zl: preflight failed: " << e.what() << "\n";
    return e.exit_code();
  }

  std::vector<std::string> ops = vm->count("ops") ? util::split(value("ops"), ',')
                                 : vm->count("ops-file") ? read_ops_file(value("ops-file"))
                                                         : batch::all_ops(flaggems);
  for (const auto& op : ops) {
    if (!util::is_identifier(op)) {
      throw Error(fmt::format("--ops: '{}' is not an op name ([a-z0-9_]+)", op));
    }
  }
  if (ops.empty()) {
    throw Error("no ops to run");
  }
  const auto selection = ctx.select_backend();
  const auto& backend = *selection.module;

  batch::CampaignSpec spec;
  spec.zl_binary = fs::read_symlink("/proc/self/exe").string();
  spec.global_args = {"--backend", backend.name()};
  for (const auto& p : ctx.backend_paths) {
    spec.global_args.insert(spec.global_args.end(), {"--backend-path", util::absolute(p)});
  }
  spec.backend = backend.name();
  spec.devices = devices::choose_list(backend, vm->count("gpus")      ? std::optional(value("gpus"))
                                              : vm->count("devices") ? std::optional(value("devices"))
                                                                     : std::nullopt,
                                      vm->count("gpus") ? "--gpus" : "--devices");
  spec.level = check.level;
  spec.run_args = {"--flaggems", util::absolute(flaggems)};
  for (const char* name : k_forwarded_values) {
    if (vm->count(name)) {
      spec.run_args.insert(spec.run_args.end(), {std::string("--") + name, value(name)});
    }
  }
  if (vm->count("isolate-tuner-cache")) {
    spec.run_args.push_back("--isolate-tuner-cache");
  }
  if (vm->count("timeout-per-op")) {
    spec.timeout_per_op = (*vm)["timeout-per-op"].as<double>();
  }
  spec.out_dir = vm->count("out") ? util::absolute(value("out"))
                                  : util::absolute(fmt::format("campaigns/{:%Y%m%dT%H%M%S}Z-{}",
                                                               fmt::gmtime(std::time(nullptr)), backend.name()));
  const auto csv = spec.out_dir + "/ops_status.csv";
  std::vector<batch::OpStatus> statuses;
  if (vm->count("resume")) {
    if (!fs::exists(csv)) {
      throw Error(fmt::format("--resume: {} has no ops_status.csv; start the campaign without --resume", spec.out_dir));
    }
    statuses = batch::parse_ops_status(util::read_file(csv), csv);
  } else if (fs::exists(csv)) {
    throw Error(fmt::format("{} already holds a campaign (ops_status.csv); continue it with --resume, or choose "
                            "another --out",
                            spec.out_dir));
  }
  util::make_dirs(spec.out_dir);
  results::Store store(vm->count("db") ? util::absolute(value("db")) : spec.out_dir + "/results.sqlite");
  auto expected = [&](const std::string& op) { return store.expected_duration(backend.name(), op); };
  std::set<std::string> known;
  for (const auto& s : statuses) {
    known.insert(s.op);
  }
  for (const auto& op : batch::order_longest_first(ops, expected)) {
    if (known.insert(op).second) {
      batch::OpStatus s;
      s.op = op;
      s.status = "pending";
      statuses.push_back(s);
    }
  }
  const auto outcome = batch::run_campaign(spec, statuses, store, expected);
  std::cout << csv << "\n";
  return outcome.exit_code;
}

} // namespace zl::cli
