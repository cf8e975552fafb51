// zl ab: one op under two settings of a compiler switch, interleaved rounds, a full table.
#include "output.hpp"

#include "ab/axis.hpp"
#include "ab/rounds.hpp"
#include "batch/folder.hpp"
#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/sources.hpp"
#include "results/report/format.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <set>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl [--backend NAME] ab --flaggems DIR --op OP [--axis VAR] [--values A,B] [--rounds N] [--out DIR]\n"
    "        [--force] [--level ...] [--mode ...] [--dtypes ...] [--timer ...] [--device ...] [--python PATH]\n\n"
    "Runs OP with VAR=A and with VAR=B in N interleaved rounds (A B, then B A, ...), each side in its\n"
    "own `zl run` with an isolated tuner cache and Triton cache, so neither inherits the other's\n"
    "compiles or tuning winners. The default axis is the backend's FlagTree switch,\n"
    "FLAGTREE_<VENDOR>_RLC_ENHANCE (FLAGTREE_RLC_ENHANCE where the backend has no vendor token),\n"
    "with values 0,1.\n\n"
    "Before spending rounds zl checks that the axis is live: its name must occur in the triton or\n"
    "flagtree package the benchmark Python imports (its .py files and shared objects). If it does\n"
    "not, zl refuses (exit 2) and says what it searched; --force runs anyway and prints a banner\n"
    "above every table, since a switch nothing reads shows no difference in every round.\n\n"
    "Output: a full table per round, then the aggregate per op, dtype and size (median latency\n"
    "ratio B/A, range, Mann-Whitney U verdict over the rounds) with both sides' caliber. The folder\n"
    "(--out, default ab/<UTC time>-<op>-<axis>/) holds A/round-N/ and B/round-N/ run folders that\n"
    "`zl summary --ab OUT/A OUT/B` reads again, logs/, and ab.json.\n\n"
    "Examples:\n"
    "  zl --backend=musa ab --flaggems ~/FlagGems --op mm --rounds 5\n"
    "  zl ab --flaggems ~/FlagGems --op abs --axis TRITON_ALWAYS_COMPILE --values 0,1 --force";

const char* const k_forwarded[] = {"level", "mode", "dtypes", "timer", "device", "shape-file", "python"};

std::string banner(const std::string& axis)
{
  return fmt::format("!! --force: {} was not found in the installed compiler; a table showing no difference may "
                     "only mean nothing reads the switch\n",
                     axis);
}

} // namespace

int cmd_ab(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("flaggems", po::value<std::string>(),
                     "FlagGems checkout (else FLAGGEMS_DIR)")("op", po::value<std::string>(), "the operator")(
      "axis", po::value<std::string>(), "environment variable under test (default: the backend's FlagTree switch)")(
      "values", po::value<std::string>(), "A,B (default 0,1)")("rounds", po::value<int>()->default_value(3),
                                                               "interleaved rounds")("out", po::value<std::string>(),
                                                                                     "output folder")(
      "force", "run even when the axis is not found in the installed compiler")("level", po::value<std::string>(),
                                                                                "forwarded to zl run")(
      "mode", po::value<std::string>(), "forwarded to zl run")("dtypes", po::value<std::string>(),
                                                               "forwarded to zl run")("timer", po::value<std::string>(),
                                                                                      "forwarded to zl run")(
      "device", po::value<std::string>(), "forwarded to zl run")("shape-file", po::value<std::string>(),
                                                                 "forwarded to zl run")(
      "python", po::value<std::string>(), "forwarded to zl run; also the Python whose compiler is searched");
  const auto vm = parse_options("ab", k_usage, desc, args);
  if (!vm) {
    return 0;
  }
  auto value = [&](const char* name) { return vm->count(name) ? (*vm)[name].as<std::string>() : std::string(); };
  const auto op = value("op");
  if (!util::is_identifier(op)) {
    throw Error("zl ab: --op OP is required and must be an operator name ([a-z0-9_]+)");
  }
  const int rounds = (*vm)["rounds"].as<int>();
  if (rounds < 1 || rounds > 1000) {
    throw Error(fmt::format("--rounds {}: give 1 to 1000 rounds (3 or more for a U-test verdict)", rounds));
  }
  auto flaggems = value("flaggems");
  if (flaggems.empty() && std::getenv("FLAGGEMS_DIR") != nullptr) {
    flaggems = std::getenv("FLAGGEMS_DIR");
  }
  const auto selection = ctx.select_backend();
  const auto& backend = *selection.module;

  ab::AbSpec spec;
  spec.axis = vm->count("axis") ? value("axis") : ab::default_axis(backend.desc.flagtree_token);
  if (spec.axis.empty() || spec.axis.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos) {
    throw Error(fmt::format("--axis {}: an environment variable name is [A-Z0-9_]+", spec.axis));
  }
  const auto values = util::split(vm->count("values") ? value("values") : "0,1", ',', false);
  if (values.size() != 2 || values[0] == values[1]) {
    throw Error("--values takes two different values, A,B");
  }
  spec.values[0] = values[0];
  spec.values[1] = values[1];
  spec.rounds = rounds;
  std::string python = value("python");
  if (python.empty()) {
    python = std::getenv("ZL_PYTHON") != nullptr ? std::getenv("ZL_PYTHON") : "python3";
  }
  const auto probe = ab::probe_axis(python, spec.axis);
  const bool forced = vm->count("force") > 0;
  if (!probe.live) {
    const auto searched = probe.searched.empty()
                              ? fmt::format("{} imports no triton or flagtree package", python)
                              : fmt::format("{} ({} files)", util::join(probe.searched, ", "), probe.files_scanned);
    if (!forced) {
      throw Error(fmt::format("the axis {} is read by nothing zl could find: searched {}; every round would run and "
                              "show no difference. Confirm the switch exists in this compiler build, choose another "
                              "--axis, or pass --force",
                              spec.axis, searched));
    }
    std::cerr << banner(spec.axis);
  } else {
    std::cerr << fmt::format("zl ab: {} is live: named in {}\n", spec.axis, probe.found_in);
  }

  spec.zl_binary = boost::filesystem::read_symlink("/proc/self/exe").string();
  spec.global_args = {"--backend", backend.name()};
  for (const auto& p : ctx.backend_paths) {
    spec.global_args.insert(spec.global_args.end(), {"--backend-path", util::absolute(p)});
  }
  spec.run_args = {"--flaggems", util::absolute(flaggems), "--op", op};
  for (const char* name : k_forwarded) {
    if (vm->count(name)) {
      spec.run_args.insert(spec.run_args.end(), {std::string("--") + name, value(name)});
    }
  }
  spec.out_dir = util::absolute(
      vm->count("out") ? value("out")
                       : fmt::format("ab/{:%Y%m%dT%H%M%S}Z-{}-{}", fmt::gmtime(std::time(nullptr)), op, spec.axis));
  if (boost::filesystem::exists(spec.out_dir + "/A") || boost::filesystem::exists(spec.out_dir + "/B")) {
    throw Error(fmt::format("{} already holds an A/B; choose another --out", spec.out_dir));
  }
  batch::check_out_path(spec.out_dir, false); // the campaign folder's rules, and its one owner
  util::make_dirs(spec.out_dir);
  const batch::CampaignLock owner(spec.out_dir, false);
  bool interrupted = false;
  const auto runs = ab::run_rounds(spec, interrupted);

  util::JsonWriter j;
  j.w().StartObject();
  j.field("axis", spec.axis);
  j.strings("values", values);
  j.field("rounds", rounds);
  j.field("axis_live", probe.live);
  j.nullable("axis_found_in", probe.found_in);
  j.strings("searched", probe.searched);
  j.field("forced", forced);
  j.field("interrupted", interrupted);
  j.w().EndObject();
  util::write_file_atomic(spec.out_dir + "/ab.json", j.text());

  const auto compare = [&](const std::string& a, const std::string& b) {
    const auto runs_a = results::parse::load_all(results::parse::discover(a));
    const auto runs_b = results::parse::load_all(results::parse::discover(b));
    results::report::AbView view;
    view.a_path = a;
    view.b_path = b;
    auto caliber = [](const std::vector<results::Run>& side) {
      std::set<std::string> all;
      for (const auto& r : side) {
        all.insert(results::compare::describe(r.info.caliber));
      }
      return util::join(std::vector<std::string>(all.begin(), all.end()), " | ");
    };
    view.a_caliber = caliber(runs_a) + fmt::format("; {}={}", spec.axis, values[0]);
    view.b_caliber = caliber(runs_b) + fmt::format("; {}={}", spec.axis, values[1]);
    view.forced = true; // both sides differ by the axis alone; calibers are printed, not refused
    const auto r = results::compare::compare(runs_a, runs_b, view.options);
    std::string out = forced && !probe.live ? banner(spec.axis) : std::string();
    return out + results::report::format_ab(r, view, results::report::Format::text);
  };
  for (int round = 1; round <= rounds; ++round) {
    const auto a = fmt::format("{}/A/round-{}", spec.out_dir, round);
    const auto b = fmt::format("{}/B/round-{}", spec.out_dir, round);
    if (boost::filesystem::exists(a + "/run_identity.json") && boost::filesystem::exists(b + "/run_identity.json")) {
      std::cout << fmt::format("== round {} ({}={} vs {}={})\n", round, spec.axis, values[0], spec.axis, values[1])
                << compare(a, b) << "\n";
    }
  }
  std::cout << fmt::format("== all rounds ({}={} vs {}={})\n", spec.axis, values[0], spec.axis, values[1])
            << compare(spec.out_dir + "/A", spec.out_dir + "/B");
  std::cout << spec.out_dir << "\n";
  if (interrupted) {
    return 130;
  }
  for (const auto& r : runs) {
    if (r.exit_code != 0) {
      std::cerr << fmt::format("zl ab: side {} of round {} exited {}: see {}\n", r.side, r.round, r.exit_code,
                               r.run_dir);
      return 1;
    }
  }
  return 0;
}

} // namespace zl::cli
