#include "run/extra_args.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace zl::run {

namespace {

constexpr const char* k_node = "choose the node with zl's --op, --op-file or --test-node FILE::TEST";
constexpr const char* k_config =
    "zl runs pytest on the FlagGems folder's own configuration; choose that folder with zl's --flaggems";
constexpr const char* k_nothing = "FlagGems then measures nothing while the run reads as ok; zl run measures";

struct Owned
{
  const char* name;
  bool takes_value;
  const char* why;
};

// Options of pytest, FlagGems' conftest and common plugins that decide what is measured.
const Owned k_owned_long[] = {
    {"--mode", true, "zl passes --mode itself and records it; use zl's --mode"},
    {"--fg_mode", true, "zl passes the mode itself and records it; use zl's --mode"},
    {"--level", true, "zl passes --level itself and records it; use zl's --level (or BENCH_LEVEL)"},
    {"--dtypes", true, "zl passes --dtypes itself and records them; use zl's --dtypes LIST"},
    {"--shape_file", true, "zl passes the shapes in force and archives them; use zl's --shape-file (or SHAPE_FILE)"},
    {"--record", true, "zl passes --record log itself: the record log is part of the run folder (record.log)"},
    {"--rootdir", true, k_config},
    {"--config-file", true, k_config},
    {"--override-ini", true, k_config},
    {"--confcutdir", true, k_config},
    {"--noconftest", false, k_config},
    {"--pyargs", false, k_config},
    {"--deselect", true, k_node},
    {"--ignore", true, k_node},
    {"--ignore-glob", true, k_node},
    {"--query", false, k_nothing},
    {"--collect-marks", true, k_nothing},
    {"--parallel", true,
     "FlagGems then spreads shapes over other devices, outside the one zl pins and records; use zl's --device, or "
     "zl batch for several devices"},
    {"--capture", true, "zl passes -s so that FlagGems' tables reach run.log, which zl reads"},
    {"--numprocesses", true, "parallel pytest workers would share the device and the record log; use zl batch"},
    {"--maxprocesses", true, "parallel pytest workers would share the device and the record log; use zl batch"},
    {"--dist", true, "parallel pytest workers would share the device and the record log; use zl batch"},
    {"--tx", true, "parallel pytest workers would share the device and the record log; use zl batch"},
};

const Owned k_owned_short[] = {
    {"m", true,
     "zl selects the op's tests with -m OP itself; choose the node with zl's --op, --op-file or "
     "--test-node FILE::TEST"},
    {"k", true, "it narrows the node without a record; choose the node with zl's --test-node FILE::TEST"},
    {"p", true, "zl plans the -p plugin list from the backend (see zl plan); plugins cannot be added or removed"},
    {"c", true, k_config},
    {"o", true, k_config},
    {"n", true, "parallel pytest workers would share the device and the record log; use zl batch"},
};

// Options left to the user that take a value as the next argument.
const char* const k_valued_long[] = {
    "--warmup",
    "--iter",
    "--metrics",
    "--output",
    "--tb",
    "--maxfail",
    "--durations",
    "--durations-min",
    "--basetemp",
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--log-level",
    "--log-format",
    "--log-date-format",
    "--log-cli-level",
    "--log-cli-format",
    "--log-cli-date-format",
    "--log-file",
    "--log-file-level",
    "--log-file-format",
    "--log-file-date-format",
    "--log-auto-indent",
    "--show-capture",
    "--color",
    "--code-highlight",
    "--pastebin",
    "--import-mode",
    "--pythonwarnings",
    "--verbosity",
    "--timeout",
    "--timeout-method",
    "--assert",
    "--doctest-glob",
    "--doctest-report",
    "--pdbcls",
};
constexpr std::string_view k_valued_short = "rW";

[[noreturn]] void refuse(const std::string& arg, const std::string& why)
{
  throw Error(fmt::format("pytest argument after --: {}: {}", arg, why));
}

[[noreturn]] void refuse_positional(const std::string& arg)
{
  refuse(arg, fmt::format("pytest would take it as another test path; {}. If it is the value of an option, write "
                          "--option=value",
                          k_node));
}

// One short-option word (-sxk EXPR): returns whether the next argument is its value.
bool short_word(const std::string& arg)
{
  for (size_t i = 1; i < arg.size(); ++i) {
    const std::string c(1, arg[i]);
    const auto owned =
        std::find_if(std::begin(k_owned_short), std::end(k_owned_short), [&](const Owned& o) { return c == o.name; });
    if (owned != std::end(k_owned_short)) {
      refuse(arg, owned->why);
    }
    if (k_valued_short.find(arg[i]) != std::string_view::npos) {
      return i + 1 == arg.size(); // the rest of the word, else the next argument, is the value
    }
  }
  return false;
}

} // namespace

void check_extra_args(const std::vector<std::string>& args)
{
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--") {
      if (i + 1 < args.size()) {
        refuse_positional(args[i + 1]);
      }
      return;
    }
    if (arg.rfind("--", 0) == 0) {
      const auto name = arg.substr(0, arg.find('='));
      const bool inline_value = name.size() < arg.size();
      const auto owned = std::find_if(std::begin(k_owned_long), std::end(k_owned_long),
                                      [&](const Owned& o) { return name == o.name; });
      if (owned != std::end(k_owned_long)) {
        refuse(owned->takes_value && !inline_value && i + 1 < args.size() ? arg + " " + args[i + 1] : arg, owned->why);
      }
      const bool valued =
          std::any_of(std::begin(k_valued_long), std::end(k_valued_long), [&](const char* v) { return name == v; });
      i += valued && !inline_value ? 1U : 0U;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      i += short_word(arg) ? 1U : 0U;
      continue;
    }
    refuse_positional(arg);
  }
}

} // namespace zl::run
