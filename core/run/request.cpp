#include "run/request.hpp"

#include "run/extra_args.hpp"
#include "run/sampling.hpp"
#include "run/telemetry.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace zl::run {

const std::vector<std::string> k_levels = {"core", "comprehensive"};
// The modes FlagGems' benchmark conftest accepts for --mode (consts.BenchMode).
const std::vector<std::string> k_modes = {"kernel", "operator", "wrapper", "cudagraph"};
const std::vector<std::string> k_timers = {"auto", "graph", "direct", "profiler"};
// The dtypes FlagGems' benchmark conftest accepts for --dtypes.
const std::vector<std::string> k_dtypes = {"float16", "float32", "bfloat16", "int16", "int32", "bool", "complex64"};

namespace {

void one_of(const std::string& option, const std::string& value, const std::vector<std::string>& accepted)
{
  if (std::find(accepted.begin(), accepted.end(), value) == accepted.end()) {
    throw Error(fmt::format("{} {} is not accepted; use one of: {}", option, value.empty() ? "\"\"" : value,
                            util::join(accepted, ", ")));
  }
}

} // namespace

std::string variable(const char* name)
{
  const char* v = name != nullptr ? std::getenv(name) : nullptr;
  return v != nullptr ? std::string(v) : std::string();
}

std::string option_or(const std::optional<std::string>& option, const char* variable_name)
{
  return option ? *option : variable(variable_name);
}

void locate_flaggems(Request& r, const std::optional<std::string>& option)
{
  r.flaggems_dir = option.value_or("");
  r.flaggems_dir_from = "--flaggems";
  if (r.flaggems_dir.empty() && !(r.flaggems_dir = variable("FLAGGEMS_DIR")).empty()) {
    r.flaggems_dir_from = "FLAGGEMS_DIR";
  }
  if (r.flaggems_dir.empty() && boost::filesystem::exists("benchmark/conftest.py")) {
    r.flaggems_dir = ".";
    r.flaggems_dir_from = "the working folder";
  }
}

std::string python_of(const std::optional<std::string>& option)
{
  const auto python = option_or(option, "ZL_PYTHON");
  return python.empty() ? "python3" : python;
}

void apply_options(Request& r, const GivenOptions& given)
{
  locate_flaggems(r, given.flaggems);
  r.level = option_or(given.level, "BENCH_LEVEL");
  r.level = r.level.empty() ? "core" : r.level;
  const auto shape_mode = option_or(given.shape_mode, "SHAPE_MODE");
  if (!shape_mode.empty() && shape_mode != "upstream") {
    throw Error(fmt::format("--shape-mode {} is not accepted; the one mode is upstream (FlagGems' own shapes); "
                            "for other shapes use --shape-file",
                            shape_mode));
  }
  r.shape_mode_upstream = !shape_mode.empty();
  // SHAPE_MODE=upstream outranks a SHAPE_FILE variable, not a --shape-file option.
  r.shape_file = r.shape_mode_upstream && !given.shape_file ? "" : option_or(given.shape_file, "SHAPE_FILE");
  r.replay_from = option_or(given.replay_from, "REPLAY_FROM");
  r.isolate_tuner_cache = given.isolate_tuner_cache || variable("ZL_ISOLATE_TUNER_CACHE") == "1";
  r.python = python_of(given.python);
}

void validate(const Request& r)
{
  // The earlier harness took OP and OP_FILE together (that op inside that file); a node id
  // names both itself.
  if (r.op.empty() && r.op_file.empty() && r.test_node.empty()) {
    throw Error("say what to run: --op OP, --op-file FILE (both: that op inside that file) or --test-node NODE (or "
                "OP, OP_FILE, TEST_NODE)");
  }
  if (!r.test_node.empty() && (!r.op.empty() || !r.op_file.empty())) {
    throw Error("--test-node names the node by itself: give it without --op and --op-file (the variables OP, "
                "OP_FILE and TEST_NODE count too when the option is absent)");
  }
  if (!r.op.empty() && !util::is_op_name(r.op)) {
    throw Error(fmt::format("--op {} is not an operator name ([A-Za-z0-9_]+); to run a file, use --op-file", r.op));
  }
  check_extra_args(r.extra_args);
  one_of("--level", r.level, k_levels);
  one_of("--mode", r.mode, k_modes);
  one_of("--timer", r.timer, k_timers);
  if (!r.sampling.empty()) {
    parse_sampling(r.sampling); // refused here, before anything is written
  }
  if (!r.telemetry.empty()) {
    parse_telemetry(r.telemetry);
  }
  for (const auto& d : r.dtypes) {
    one_of("--dtypes", d, k_dtypes);
  }
  if (r.record_autotune && !r.replay_from.empty()) {
    throw Error("--record-autotune and --replay-from (or REPLAY_FROM) exclude each other: a replay run pins the "
                "configs a record run chose, so it has none of its own to record");
  }
  if (r.shape_mode_upstream && !r.shape_file.empty()) {
    throw Error("--shape-mode upstream defers to FlagGems' own core_shapes.yaml; it cannot go with --shape-file "
                "(or SHAPE_FILE)");
  }
}

} // namespace zl::run
