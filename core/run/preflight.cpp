#include "run/preflight.hpp"

#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

namespace zl::run {

namespace fs = boost::filesystem;

std::string PreflightError::marker() const
{
  return fmt::format("PREFLIGHT_FAILED check={} path={}", m_check, m_path.empty() ? "-" : m_path);
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

void preflight(const PreflightInput& in)
{
  const fs::path root(in.flaggems_dir);
  if (in.flaggems_dir.empty()) {
    throw PreflightError("flaggems_dir", "",
                         "no FlagGems folder: pass --flaggems DIR, set FLAGGEMS_DIR, or run zl inside a FlagGems "
                         "checkout (a folder holding benchmark/conftest.py)");
  }
  if (!fs::is_directory(root)) {
    throw PreflightError("flaggems_dir", in.flaggems_dir,
                         fmt::format("the FlagGems folder {} (from {}) does not exist", in.flaggems_dir,
                                     in.flaggems_dir_from));
  }
  if (!fs::is_regular_file(root / "benchmark" / "conftest.py")) {
    throw PreflightError("flaggems_dir", in.flaggems_dir,
                         fmt::format("{} (from {}) is not a FlagGems checkout: it has no benchmark/conftest.py, so "
                                     "pytest would not know --level and --mode",
                                     in.flaggems_dir, in.flaggems_dir_from));
  }
  const auto bench = (root / in.benchmark_file).lexically_normal();
  if (!fs::is_regular_file(bench)) {
    throw PreflightError("benchmark_file", bench.string(),
                         fmt::format("the benchmark file {} does not exist ({})", bench.string(), in.how_resolved));
  }
  if (!in.shape_file.empty() && !fs::is_regular_file(in.shape_file)) {
    throw PreflightError("shape_file", in.shape_file, fmt::format("the shape file {} does not exist", in.shape_file));
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
