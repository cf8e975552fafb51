#include "run/preflight.hpp"

#include "results/parse/marker_names.hpp"
#include "run/plan.hpp"
#include "shapes/shape_resolver.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace zl::run {

namespace fs = boost::filesystem;

std::string PreflightError::marker() const
{
  return fmt::format("{} check={} path={}", results::parse::marker_names::k_preflight_failed, m_check,
                     m_path.empty() ? "-" : m_path);
}

std::optional<std::string> python_lacks_pytest(const std::string& python)
{
  util::SpawnSpec spec;
  // find_spec looks pytest up without importing it: the check costs one interpreter start.
  spec.argv = {python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)"};
  spec.timeout = std::chrono::seconds(60);
  std::string err;
  try {
    const auto r = util::run(spec, {}, [&](std::string_view s) { err.append(s); });
    if (r.exit_code == 0) {
      return std::nullopt;
    }
    const auto lines = util::split(err, '\n');
    if (lines.empty()) {
      return fmt::format("{} finds no module named pytest", python);
    }
    return fmt::format("{} cannot look for pytest ({})", python, std::string(util::trim(lines.back())));
  } catch (const util::SpawnFailure& e) {
    return fmt::format("{} cannot be run: {}", python, e.message);
  }
}

namespace {

std::string measured_with_defaults(const std::string& op)
{
  return fmt::format("FlagGems would measure op '{}' with its class's DEFAULT_SHAPES while the run names this file as "
                     "the shapes in force",
                     op);
}

// The file is a YAML mapping with at least one key.
void check_mapping(const std::string& shape_file, const std::string& op)
{
  YAML::Node root;
  try {
    root = YAML::LoadFile(shape_file);
  } catch (const YAML::Exception& e) {
    throw PreflightError("shape_file", shape_file,
                         fmt::format("the shape file {} is not valid YAML: {}", shape_file, e.what()));
  }
  if (root.IsNull() || (root.IsMap() && root.size() == 0)) {
    throw PreflightError("shape_file", shape_file,
                         fmt::format("the shape file {} is empty: {}", shape_file, measured_with_defaults(op)));
  }
  if (!root.IsMap()) {
    throw PreflightError("shape_file", shape_file,
                         fmt::format("the shape file {} is not a mapping of keys to {{shapes: [...]}} (it holds a "
                                     "YAML {}): {}",
                                     shape_file, root.IsSequence() ? "list" : "scalar", measured_with_defaults(op)));
  }
}

// Every target the module certainly constructs finds a key with shapes; shape_file: as the user named it.
void check_resolves(shapes::Resolution r, const std::string& shape_file)
{
  try {
    shapes::look_up_shapes(r);
  } catch (const Error& e) {
    throw PreflightError("shape_file", shape_file, e.what());
  }
  const bool known = std::any_of(r.targets.begin(), r.targets.end(), [](const auto& t) { return t.certain; });
  if (!known || r.complete()) {
    return;
  }
  std::vector<std::string> problems;
  for (const auto& t : r.targets) {
    if (t.key.empty()) {
      problems.push_back(fmt::format("no key for op '{}' (tried {})", r.op, util::join(t.candidates, ", ")));
    } else if (!t.problem.empty()) {
      problems.push_back(t.problem);
    }
  }
  throw PreflightError("shape_file", shape_file,
                       fmt::format("the shape file {} does not resolve for {}: {}; {}", shape_file, r.module,
                                   util::join(problems, "; "), measured_with_defaults(r.op)));
}

} // namespace

void check_shape_file(const std::string& flaggems_dir, const std::string& module, const std::string& op,
                      const std::string& shape_file)
{
  check_mapping(shape_file, op);
  shapes::Resolution r;
  try {
    r = shapes::find_targets({flaggems_dir, module, op, shape_file});
  } catch (const Error& e) {
    throw PreflightError("shape_file", shape_file, e.what());
  }
  check_resolves(std::move(r), shape_file);
}

void check_shape_file(const shapes::Resolution& found)
{
  check_mapping(found.shape_file, found.op);
  check_resolves(found, found.shape_file);
}

void check_record_log_name(const std::vector<std::string>& pytest_args)
{
  constexpr size_t k_name_max = 255; // NAME_MAX of Linux file systems, in bytes
  const auto name = record_log_name(pytest_args);
  if (name.size() > k_name_max) {
    throw PreflightError("record_log", "",
                         fmt::format("FlagGems would name its record log after the pytest arguments, {} bytes where "
                                     "a file name may have {}: {}; shorten the arguments after -- (or the node)",
                                     name.size(), k_name_max, name));
  }
}

void preflight(const PreflightInput& in)
{
  const fs::path root(in.flaggems_dir);
  if (in.flaggems_dir.empty()) {
    throw PreflightError("flaggems_dir", "",
                         "no FlagGems folder: pass --flaggems DIR, set FLAGGEMS_DIR, or run zl inside a FlagGems "
                         "checkout (a folder holding benchmark/conftest.py)");
  }
  if (!fs::is_directory(root)) {
    throw PreflightError(
        "flaggems_dir", in.flaggems_dir,
        fmt::format("the FlagGems folder {} (from {}) does not exist", in.flaggems_dir, in.flaggems_dir_from));
  }
  if (!fs::is_regular_file(root / "benchmark" / "conftest.py")) {
    throw PreflightError("flaggems_dir", in.flaggems_dir,
                         fmt::format("{} (from {}) is not a FlagGems checkout: it has no benchmark/conftest.py, so "
                                     "pytest would not know --level and --mode",
                                     in.flaggems_dir, in.flaggems_dir_from));
  }
  const auto bench = (root / in.benchmark_file).lexically_normal();
  if (!in.node_problem.empty()) {
    throw PreflightError("benchmark_file", bench.string(), in.node_problem);
  }
  if (!fs::is_regular_file(bench)) {
    throw PreflightError("benchmark_file", bench.string(),
                         fmt::format("the benchmark file {} does not exist ({})", bench.string(), in.how_resolved));
  }
  if (!in.shape_file.empty() && !fs::is_regular_file(in.shape_file)) {
    throw PreflightError("shape_file", in.shape_file, fmt::format("the shape file {} does not exist", in.shape_file));
  }
  if (!in.shape_file.empty() && !in.op.empty()) {
    check_shape_file(in.flaggems_dir, in.benchmark_file, in.op, in.shape_file);
  }
  if (!in.replay_from.empty() && !fs::is_directory(in.replay_from)) {
    throw PreflightError("replay_from", in.replay_from,
                         fmt::format("the replay folder {} does not exist; give the autotune_records/ folder of a "
                                     "record run, or its run folder",
                                     in.replay_from));
  }
  // A records folder always has a manifest (a record run that tuned nothing writes one too),
  // so a folder without one is a wrong path, not an empty record.
  if (!in.replay_from.empty() && !fs::is_regular_file(fs::path(in.replay_from) / "manifest.json") &&
      !fs::is_regular_file(fs::path(in.replay_from) / "autotune_records" / "manifest.json")) {
    throw PreflightError("replay_from", in.replay_from,
                         fmt::format("the replay folder {} holds no autotune records (neither manifest.json nor "
                                     "autotune_records/manifest.json); give the run folder of a "
                                     "--record-autotune run, its autotune_records/, or a sweep's",
                                     in.replay_from));
  }
  if (auto why = in.python.empty() ? std::nullopt : python_lacks_pytest(in.python)) {
    throw PreflightError("python", in.python,
                         fmt::format("{}; install pytest for that interpreter, or name one that has it with --python "
                                     "(or ZL_PYTHON): on Debian, apt-get install python3-pytest puts it in "
                                     "/usr/bin/python3, which may not be the python3 first on PATH",
                                     *why));
  }
}

} // namespace zl::run
