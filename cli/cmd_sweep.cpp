// zl sweep: tune an op's shapes across devices and publish one autotune config set.
#include "output.hpp"

#include "run/preflight.hpp"
#include "run/request.hpp"
#include "sweep/sweep.hpp"
#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>
#include <optional>

namespace zl::cli {

namespace {

constexpr const char* k_sweep_usage =
    "zl [--backend NAME] sweep --flaggems DIR --op OP [--devices LIST] [--level core|comprehensive]\n"
    "        [--out DIR] [--shape-file FILE] [--dtypes LIST] [--timer T] [--python PATH] [--resolve-only]";

constexpr const char* k_sweep_notes =
    R"(The op's shapes are found as FlagGems' set_shapes finds them, read from source: the op name as
a key of the shape file first, then each class of the benchmark's chain (the class of the
constructor call with op_name="OP" in its test module, its bases there and in benchmark/base.py).
--resolve-only prints the keys and shapes and stops; a total miss lists every key tried, exit 1.

The shapes are split across the devices (--devices, else PARALLEL_WARMUP_GPUS, else every
device of the backend): one `zl run --record-autotune --isolate-tuner-cache` per device, pinned
with the backend's visibility variable, each with its own shape file and tuner cache. The
shards' records are merged and published atomically as <out>/autotune_records/, ready for
`zl run --replay-from <out>`. The serial sweep (one run, every shape, the first device) runs
instead when --level is comprehensive (classes add shapes in Python that no static reading
sees), when the shapes cannot be resolved, when any shard exits non-zero (the sharded result is
discarded whole; its run folders and logs/ stay), or when shards disagree on a key. That costs
time, never the caliber. sweep.json in the sweep folder says what ran and what was published.

Exit codes: 0 published; 1 nothing published (the serial sweep failed, or --resolve-only
missed); 2 usage; 3 preflight (PREFLIGHT_FAILED check=<name>).

Examples:
  zl sweep --flaggems ~/FlagGems --op mm --resolve-only
  zl --backend=cuda sweep --flaggems ~/FlagGems --op mm --devices 0,1,2,3 --dtypes float16
  zl --backend=cuda run --flaggems ~/FlagGems --op mm --replay-from sweeps/<folder>
)";

std::vector<std::string> device_list(const std::string& text)
{
  std::string normal = text;
  for (auto& c : normal) {
    c = c == ' ' || c == '\t' ? ',' : c;
  }
  return util::split(normal, ',');
}

} // namespace

int cmd_sweep(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
    ("flaggems", po::value<std::string>(), "FlagGems checkout (else FLAGGEMS_DIR, else the working folder)")
    ("op", po::value<std::string>(), "operator to tune (else OP)")
    ("devices", po::value<std::string>(), "comma list of device indices or UUIDs (else PARALLEL_WARMUP_GPUS, else all the "
                                          "inherited visibility mask leaves visible); each device once")
    ("level", po::value<std::string>(), "core (default) or comprehensive (always the serial sweep)")
    ("out", po::value<std::string>(), "sweep folder (default sweeps/<UTC time>-<op>-<backend>/)")
    ("shape-file", po::value<std::string>(), "shapes YAML instead of benchmark/core_shapes.yaml (else SHAPE_FILE)")
    ("dtypes", po::value<std::string>(), "comma list passed to every worker")
    ("timer", po::value<std::string>(), "timer of the workers' runs (default: auto)")
    ("python", po::value<std::string>(), "interpreter that runs pytest (else ZL_PYTHON, else python3)")
    ("resolve-only", "print the keys and shapes resolved, run nothing");
  // clang-format on
  const auto vm = parse_options("sweep", std::string(k_sweep_usage) + "\n\n" + k_sweep_notes, desc, args);
  if (!vm) {
    return 0;
  }
  auto given = [&](const char* option) {
    return vm->count(option) ? std::optional((*vm)[option].as<std::string>()) : std::nullopt;
  };
  auto get = [&](const char* option, const char* variable) { return run::option_or(given(option), variable); };
  sweep::Request r;
  run::Request where;
  run::locate_flaggems(where, given("flaggems"));
  r.flaggems_dir = where.flaggems_dir;
  r.flaggems_dir_from = where.flaggems_dir_from;
  r.op = get("op", "OP");
  if (r.op.empty()) {
    throw Error("say which op to sweep: --op OP (or OP)");
  }
  r.devices = device_list(get("devices", "PARALLEL_WARMUP_GPUS"));
  r.devices_from = vm->count("devices") ? "--devices" : r.devices.empty() ? "" : "PARALLEL_WARMUP_GPUS";
  r.level = get("level", "BENCH_LEVEL");
  r.level = r.level.empty() ? "core" : r.level;
  r.out_dir = get("out", nullptr);
  r.shape_file = get("shape-file", "SHAPE_FILE");
  r.dtypes = util::split(get("dtypes", nullptr), ',');
  r.timer = get("timer", nullptr);
  r.python = run::python_of(given("python"));
  r.resolve_only = vm->count("resolve-only") > 0;
  try {
    if (r.resolve_only) {
      return sweep::resolve_only(r);
    }
    const auto selection = ctx.select_backend();
    r.backend = selection.module->name();
    r.backend_paths = ctx.backend_paths;
    return sweep::run(r, *selection.module);
  } catch (const run::PreflightError& e) {
    std::cout << e.marker() << std::endl;
    std::cerr << "zl: preflight failed: " << e.what() << "\n";
    return e.exit_code();
  }
}

} // namespace zl::cli
