// zl batch: a campaign of many ops over the devices of one host.
#include "output.hpp"

#include "batch/caliber.hpp"
#include "batch/campaign.hpp"
#include "batch/folder.hpp"
#include "devices/select.hpp"
#include "exec/factory.hpp"
#include "exec/warm.hpp"
#include "results/store/store.hpp"
#include "run/preflight.hpp"
#include "slurm/campaign.hpp"
#include "slurm/cluster.hpp"
#include "slurm/task.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

namespace zl::cli {

namespace {

// clang-format off
constexpr const char* k_usage =
  "zl [--backend NAME] batch --flaggems DIR (--ops a,b,c | --ops-file FILE | --all)\n"
  "        [--devices 0,1|UUID,...|all] [--gpus ...] [--out DIR] [--resume [--force]] [--timeout-per-op S]\n"
  "        [--level ...] [--mode ...] [--dtypes ...] [--timer ...] [--sampling S] [--shape-file F | --shape-mode upstream]\n"
  "        [--replay-from DIR] [--isolate-tuner-cache] [--python PATH] [--executor NAME]\n"
  "        [--partition P] [--account A] [--gpus-per-task G] [--ops-per-task N] [--max-concurrent K]\n"
  "        [--time-per-task T] [--sbatch-arg ARG]... [--dry-run] [--no-wait]   (with --executor slurm)\n\n"
  "Runs each op as its own `zl run` (the same code path), one op per device at a time, each pinned\n"
  "with the backend's visibility variable; longest expected first, from durations already in the\n"
  "campaign's results store. After each op, ops_status.csv is rewritten atomically and the run\n"
  "folder is ingested into results.sqlite. At the end: the makespan against the ideal.\n\n"
  "The campaign folder (--out, default campaigns/<UTC time>-<backend>/) holds campaign.json (the\n"
  "caliber), ops_status.csv, results.sqlite, logs/<op>.log (what each `zl run` printed), one run\n"
  "folder per op, and .zl-lock. --out must be a new or empty folder (or, with --resume, a campaign):\n"
  "a file, a run folder, a folder inside a campaign or run, other files, or a name with a control\n"
  "character are refused.\n\n"
  "One owner: the campaign is locked while zl batch runs; a second zl batch on it (--resume or not)\n"
  "is refused with the owner's pid and host. The lock dies with its owner; processes a dead owner\n"
  "left running are named, and --resume waits for you to stop them.\n\n"
  "One caliber: the backend, --flaggems, --level, --mode, --dtypes, --timer, --sampling, --shape-file (and its\n"
  "content), --shape-mode, --replay-from, --isolate-tuner-cache and --python (options first, then the\n"
  "variables zl run reads) are recorded in campaign.json and given to every op; --resume with any\n"
  "difference is refused. A campaign of an earlier zl (no campaign.json) also needs --force.\n"
  "--resume re-runs only the ops not ok, unsupported or skipped; an op's earlier folder is kept as\n"
  "<op>.attempt-N. Ctrl-C (or SIGTERM) starts nothing new, interrupts the running ops and exits 130.\n"
  "--timeout-per-op: a finite number of seconds, at least 1 (default: no limit).\n"
  "--executor: how each op is carried out; warm (the default) runs each device's ops in one\n"
  "long-lived Python worker that imports torch and flag_gems once; an op that kills its worker is\n"
  "crashed, the next op gets a new one. process starts a fresh `zl run` per op (the default with\n"
  "--isolate-tuner-cache, which warm cannot keep). slurm submits the campaign to a Slurm cluster\n"
  "(below). It is part of the caliber: --resume continues with the campaign's executor, and\n"
  "--resume with another --executor is refused.\n\n"
  "--executor slurm: one job array (sbatch --array=0-M%K) whose task I runs `zl batch --slurm-task I`,\n"
  "the warm executor over its slice of the ops (longest first) on the GPUs Slurm allocated, writing\n"
  "its run folders into the campaign folder, which must be on a filesystem the nodes share; then a\n"
  "final step (--dependency=afterany) that merges the tasks' records into ops_status.csv, ingests\n"
  "the run folders into results.sqlite and prints the summary. Both batch scripts are kept in\n"
  "<out>/slurm/ and can be submitted by hand; --dry-run writes them and submits nothing. zl follows\n"
  "the jobs (squeue, scontrol; sacct where the cluster keeps accounting), does the final step's work\n"
  "itself as soon as the array ends (and cancels the final step) and exits as a local batch does,\n"
  "unless --no-wait; Ctrl-C asks once, then scancels the array (SIGTERM at once); a hangup only\n"
  "stops following, and the final step records the campaign. A task's time limit makes its\n"
  "unfinished op timeout, a node failure or out-of-memory crashed, a cancel interrupted; the Slurm\n"
  "state of each task is in <out>/slurm/tasks.csv. --resume submits only the ops not ok.\n\n"
  "Statuses: ok; unsupported (FlagGems refused a requested dtype in every test that did not pass,\n"
  "and none passed) and skipped (every test skipped, its reasons in the identity), which are\n"
  "FlagGems' answers, not failures; failed (a test failed or errored), preflight_failed, no_rows\n"
  "(pytest passed, no FlagGems table), timeout, interrupted, crashed; pending for an op never\n"
  "started. --resume re-runs what is not ok, unsupported or skipped. Exit status: 0 every op ok,\n"
  "unsupported or skipped, 1 some op failed otherwise, 2 usage, 3 preflight, 130 interrupted.\n\n"
  "Examples:\n"
  "  zl batch --flaggems corpus --ops abs,add,mm\n"
  "  zl --backend=cuda batch --flaggems ~/FlagGems --ops-file ops.txt --devices all --timeout-per-op 900\n"
  "  zl batch --flaggems ~/FlagGems --all --out campaigns/nightly --resume\n"
  "  zl batch --flaggems ~/FlagGems --all --db ~/zl-results.sqlite   (longest-first from past campaigns)\n"
  "  zl --backend=cuda batch --flaggems /shared/FlagGems --all --out /shared/c1 --executor slurm \\\n"
  "      --partition gpu --max-concurrent 8 --time-per-task 2:00:00";
// clang-format on

// A whole number of at least least, for the options that count.
size_t count_option(const std::string& text, const char* option, size_t least)
{
  size_t used = 0;
  unsigned long n = 0;
  try {
    n = std::stoul(text, &used);
  } catch (const std::logic_error&) {
  }
  if (text.empty() || used != text.size() || text[0] == '-' || n < least || n > 1000000) {
    throw Error(fmt::format("{} {:?}: give a whole number of at least {}", option, text, least));
  }
  return n;
}

std::unique_ptr<po::options_description> describe()
{
  auto desc = std::make_unique<po::options_description>("Options");
  // clang-format off
  desc->add_options()
    ("flaggems", po::value<std::string>(), "FlagGems checkout (else FLAGGEMS_DIR, else the working folder if it "
                                           "holds benchmark/conftest.py)")
    ("ops", po::value<std::string>(), "comma list of ops")
    ("ops-file", po::value<std::string>(), "one op per line; # starts a comment")
    ("all", "every op of the tree: each op mark of its benchmark files (abs and abs_ alike; pytest's collection decides in v3.0 to v5.0.2's category files), and each benchmark/test_<op>.py that marks nothing (docs/flaggems-releases.md)")
    ("devices", po::value<std::string>(), "device indices or UUIDs, comma list, or all (default): all means every "
                                          "device the inherited visibility mask leaves visible; a device outside "
                                          "it, an empty list and one device named twice are refused")
    ("gpus", po::value<std::string>(), "the same as --devices")
    ("out", po::value<std::string>(), "campaign folder (default campaigns/<UTC time>-<backend>/)")
    ("resume", "re-run only the ops of the campaign folder whose status is not ok")
    ("force", "with --resume: accept a campaign of an earlier zl, which has no caliber record (campaign.json)")
    ("db", po::value<std::string>(), "results store (default <out>/results.sqlite); share one across campaigns "
                                     "so that later ones order ops by the durations earlier ones saw")
    ("timeout-per-op", po::value<std::string>(), "seconds before an op is stopped and recorded as timeout "
                                                 "(finite, at least 1; default: no limit)")
    ("level", po::value<std::string>(), "forwarded to zl run")
    ("mode", po::value<std::string>(), "forwarded to zl run")
    ("dtypes", po::value<std::string>(), "forwarded to zl run")
    ("timer", po::value<std::string>(), "forwarded to zl run")
    ("sampling", po::value<std::string>(), "forwarded to zl run (else ZL_SAMPLING, else its default)")
    ("telemetry", po::value<std::string>(), "forwarded to zl run (else ZL_TELEMETRY, else its default)")
    ("shape-file", po::value<std::string>(), "forwarded to zl run")
    ("shape-mode", po::value<std::string>(), "forwarded to zl run")
    ("replay-from", po::value<std::string>(), "forwarded to zl run")
    ("isolate-tuner-cache", "forwarded to zl run")
    ("python", po::value<std::string>(), "forwarded to zl run")
    ("executor", po::value<std::string>(),
                 fmt::format("how each op is carried out: {}", util::join(exec::executor_names(), ", ")).c_str())
    ("partition", po::value<std::string>(), "slurm: the partition (default: the cluster's)")
    ("account", po::value<std::string>(), "slurm: the account charged (default: yours)")
    ("gpus-per-task", po::value<std::string>(), "slurm: GPUs each array task asks for (--gres=gpu:G; default 1, 0 for none)")
    ("ops-per-task", po::value<std::string>(), "slurm: ops per array task (default: one slice per --max-concurrent "
                                               "task, else at most 64 tasks)")
    ("max-concurrent", po::value<std::string>(), "slurm: array tasks running at once (the array's %K; default: no limit)")
    ("time-per-task", po::value<std::string>(), "slurm: each task's time limit in Slurm's notation (sbatch --time)")
    ("sbatch-arg", po::value<std::vector<std::string>>(), "slurm: one more sbatch option, e.g. --sbatch-arg=--qos=long "
                                                          "(repeatable)")
    ("dry-run", "slurm: write the batch scripts into <out>/slurm/ and submit nothing")
    ("no-wait", "slurm: submit and return; the final step records the campaign")
    ("slurm-task", po::value<std::string>(), "internal: run array task N of the campaign in --out (what the batch "
                                             "script runs)")
    ("slurm-final", "internal: the final step of the campaign in --out (what the final batch script runs)");
  // clang-format on
  return desc;
}

std::string text_of(const po::variables_map& vm, const char* name)
{
  return vm.count(name) ? vm[name].as<std::string>() : std::string();
}

std::optional<std::string> given(const po::variables_map& vm, const char* name)
{
  return vm.count(name) ? std::optional<std::string>(text_of(vm, name)) : std::nullopt;
}

// What a batch script runs inside the cluster: an array task, or the final step.
int slurm_step(Context& ctx, const po::variables_map& vm)
{
  if (!vm.count("out")) {
    throw Error("--slurm-task and --slurm-final need --out, the campaign folder");
  }
  const auto out = batch::normal_path(text_of(vm, "out"));
  if (vm.count("slurm-final")) {
    return *slurm::finish_campaign(out, true);
  }
  const auto selection = ctx.select_backend();
  return slurm::run_task(out, count_option(text_of(vm, "slurm-task"), "--slurm-task", 0), *selection.module,
                         exec::this_zl(selection.module->name(), ctx.backend_paths));
}

batch::CaliberOptions caliber_options(const po::variables_map& vm, const std::string& flaggems)
{
  batch::CaliberOptions options;
  options.flaggems_dir = flaggems;
  options.level = given(vm, "level");
  options.mode = given(vm, "mode");
  options.dtypes = given(vm, "dtypes");
  options.timer = given(vm, "timer");
  options.sampling = given(vm, "sampling");
  options.telemetry = given(vm, "telemetry");
  options.shape_file = given(vm, "shape-file");
  options.shape_mode = given(vm, "shape-mode");
  options.replay_from = given(vm, "replay-from");
  options.python = given(vm, "python");
  options.isolate_tuner_cache = vm.count("isolate-tuner-cache") > 0;
  options.executor = given(vm, "executor");
  if (!options.executor && vm.count("resume") && vm.count("out")) {
    options.executor = batch::recorded_executor(util::absolute(text_of(vm, "out")));
  }
  return options;
}

// The options of --executor slurm, refused with any other executor.
slurm::ArrayOptions array_options(const po::variables_map& vm, bool on_slurm)
{
  for (const char* o : {"partition", "account", "gpus-per-task", "ops-per-task", "max-concurrent", "time-per-task",
                        "sbatch-arg", "dry-run", "no-wait"}) {
    if (vm.count(o) && !on_slurm) {
      throw Error(fmt::format("--{} is an option of --executor slurm", o));
    }
  }
  slurm::ArrayOptions array;
  array.partition = text_of(vm, "partition");
  array.account = text_of(vm, "account");
  array.time = text_of(vm, "time-per-task");
  if (vm.count("gpus-per-task")) {
    array.gpus_per_task = static_cast<unsigned>(count_option(text_of(vm, "gpus-per-task"), "--gpus-per-task", 0));
  }
  if (vm.count("max-concurrent")) {
    array.max_concurrent = static_cast<unsigned>(count_option(text_of(vm, "max-concurrent"), "--max-concurrent", 1));
  }
  if (vm.count("sbatch-arg")) {
    array.sbatch_args = vm["sbatch-arg"].as<std::vector<std::string>>();
  }
  if (on_slurm) {
    slurm::check_options(array);
    if (vm.count("timeout-per-op")) {
      throw Error("--timeout-per-op is not for --executor slurm: give each array task a limit with --time-per-task");
    }
    if (!vm.count("dry-run")) {
      slurm::check_tools();
    }
  }
  return array;
}

std::vector<std::string> chosen_ops(const po::variables_map& vm, const std::string& flaggems, const std::string& python)
{
  auto ops = vm.count("ops")        ? util::split(text_of(vm, "ops"), ',')
             : vm.count("ops-file") ? batch::read_ops_file(text_of(vm, "ops-file"))
                                    : batch::all_ops(flaggems, python);
  for (const auto& op : ops) {
    if (!util::is_op_name(op)) {
      throw Error(fmt::format("--ops: '{}' is not an op name ([A-Za-z0-9_]+)", op));
    }
  }
  if (ops.empty()) {
    throw Error("no ops to run");
  }
  return ops;
}

// The devices of a local campaign. A Slurm campaign's are the tasks' allocations: the submit
// host of a cluster may have no GPU.
std::vector<loader::Device> chosen_devices(const po::variables_map& vm, const loader::Module& backend, bool on_slurm)
{
  if (on_slurm) {
    if (vm.count("gpus") || vm.count("devices")) {
      throw Error(
          "--devices is not for --executor slurm: each array task takes the GPUs Slurm allocated (--gpus-per-task)");
    }
    return {};
  }
  return devices::choose_list(backend, vm.count("gpus") ? given(vm, "gpus") : given(vm, "devices"),
                              vm.count("gpus") ? "--gpus" : "--devices");
}

slurm::SubmitSpec slurm_submit(const po::variables_map& vm, const std::string& out, exec::ZlCommand zl,
                               slurm::ArrayOptions array)
{
  slurm::SubmitSpec submit{out,          std::move(zl),           std::move(array),
                           std::nullopt, vm.count("dry-run") > 0, vm.count("no-wait") == 0};
  if (vm.count("ops-per-task")) {
    submit.ops_per_task = count_option(text_of(vm, "ops-per-task"), "--ops-per-task", 1);
  }
  return submit;
}

// The FlagGems tree's conftest must exist before anything is written; 0 when it does.
int preflight(const run::Request& where, const batch::Caliber& caliber)
{
  try {
    run::preflight({where.flaggems_dir, where.flaggems_dir_from, "benchmark/conftest.py",
                    "the FlagGems folder's conftest", "", "", caliber.python});
  } catch (const run::PreflightError& e) {
    std::cout << e.marker() << std::endl;
    std::cerr << "zl: preflight failed: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}

} // namespace

int cmd_batch(Context& ctx, const Args& args)
{
  const auto desc = describe();
  const auto parsed = parse_options("batch", k_usage, *desc, args);
  if (!parsed) {
    return 0;
  }
  const auto& vm = *parsed;
  if (vm.count("slurm-task") || vm.count("slurm-final")) {
    return slurm_step(ctx, vm);
  }
  if (vm.count("ops") + vm.count("ops-file") + vm.count("all") != 1) {
    throw Error("say which ops: exactly one of --ops, --ops-file and --all");
  }
  if (vm.count("devices") && vm.count("gpus")) {
    throw Error("--gpus is another name for --devices: give one of them");
  }
  run::Request where; // the FlagGems folder, found as zl run finds it
  run::locate_flaggems(where, given(vm, "flaggems"));
  // Checked here, once, before any op starts or anything is written.
  auto caliber = batch::resolve_caliber(caliber_options(vm, where.flaggems_dir));
  const bool on_slurm = caliber.executor == "slurm";
  auto array = array_options(vm, on_slurm);
  if (caliber.executor == "warm" || on_slurm) {
    exec::check_warm_request(batch::base_request(caliber));
  }
  batch::CampaignSpec spec;
  if (vm.count("timeout-per-op")) {
    spec.timeout_per_op = batch::parse_timeout_per_op(text_of(vm, "timeout-per-op"));
  }
  if (const int rc = preflight(where, caliber)) {
    return rc;
  }
  const auto ops = chosen_ops(vm, where.flaggems_dir, caliber.python);
  const auto selection = ctx.select_backend();
  const auto& backend = *selection.module;
  caliber.backend = spec.backend = backend.name();
  spec.out_dir = batch::campaign_folder(given(vm, "out"), backend.name());
  batch::check_out_path(spec.out_dir, vm.count("resume") > 0);
  spec.devices = chosen_devices(vm, backend, on_slurm);
  spec.request = batch::base_request(caliber);
  std::optional<results::store::Store> store; // a bad --db is refused before the campaign folder is made
  if (vm.count("db")) {
    store.emplace(util::absolute(text_of(vm, "db")));
  }
  auto campaign = batch::open_campaign({spec.out_dir, vm.count("resume") > 0, vm.count("force") > 0, caliber});
  spec.lock = campaign.lock.get();
  if (!store) {
    store.emplace(spec.out_dir + "/" + batch::k_store_file);
  }
  auto expected = [&](const std::string& op) { return store->expected_duration(backend.name(), op); };
  batch::add_ops(campaign.statuses, ops, expected);
  const auto zl = exec::this_zl(backend.name(), ctx.backend_paths);
  if (on_slurm) {
    slurm::check_no_live_submission(spec.out_dir);
    auto ordered = batch::order_rows(campaign.statuses, expected); // longest first, as a local campaign
    return slurm::submit_campaign(slurm_submit(vm, spec.out_dir, zl, std::move(array)), ordered,
                                  std::move(campaign.lock));
  }
  const auto executor = exec::make_executor(caliber.executor, {zl, &backend, spec.devices});
  spec.executor = executor.get();
  const auto outcome = batch::run_campaign(spec, campaign.statuses, *store, expected);
  std::cout << spec.out_dir << "/ops_status.csv\n";
  return outcome.exit_code;
}

} // namespace zl::cli
