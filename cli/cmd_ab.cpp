// zl ab: one op under two settings of a compiler switch, interleaved rounds, a full table.
#include "output.hpp"

#include "ab/ab.hpp"
#include "ab/axis.hpp"
#include "exec/invocation.hpp"
#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>
#include <optional>

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

} // namespace

int cmd_ab(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("flaggems", po::value<std::string>(),
                     "FlagGems checkout (else FLAGGEMS_DIR, else the working folder if it holds "
                     "benchmark/conftest.py)")("op", po::value<std::string>(), "the operator")(
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
  if (!util::is_op_name(op)) {
    throw Error("zl ab: --op OP is required and must be an operator name ([A-Za-z0-9_]+)");
  }
  const int rounds = (*vm)["rounds"].as<int>();
  if (rounds < 1 || rounds > 1000) {
    throw Error(fmt::format("--rounds {}: give 1 to 1000 rounds (3 or more for a U-test verdict)", rounds));
  }
  const auto selection = ctx.select_backend();
  const auto& backend = *selection.module;

  ab::AbRun job;
  auto& spec = job.spec;
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
  auto given = [&](const char* name) { return vm->count(name) ? std::optional(value(name)) : std::nullopt; };
  // The options zl run would fall back from, resolved as it resolves them.
  run::apply_options(spec.request, {given("flaggems"), given("level"), given("shape-file"), std::nullopt, std::nullopt,
                                    given("python"), false});
  spec.request.op = op;
  spec.request.mode = given("mode").value_or("kernel");
  spec.request.dtypes = util::split(value("dtypes"), ',');
  spec.request.timer = given("timer").value_or("auto");
  spec.request.device = value("device");
  spec.zl = exec::this_zl(backend.name(), ctx.backend_paths);
  job.out = given("out");
  job.force = vm->count("force") > 0;
  return ab::run_ab(job, std::cout, std::cerr);
}

} // namespace zl::cli
