#include "run/release.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace zl::run {

namespace fs = boost::filesystem;

namespace {

// Every option a FlagGems benchmark conftest has registered since v3.0 (one vendor's --fg_mode
// included): one of these that the release lacks is the release's gap, not a pytest option.
const char* const k_flaggems_options[] = {"--mode",   "--fg_mode",  "--level",        "--warmup",     "--iter",
                                          "--query",  "--metrics",  "--dtypes",       "--shape_file", "--record",
                                          "--output", "--parallel", "--collect-marks"};

std::string read_or_empty(const fs::path& path)
{
  try {
    return fs::is_regular_file(path) ? util::read_file(path.string()) : std::string();
  } catch (const Error&) {
    return {};
  }
}

std::string first_match(const std::string& text, const std::regex& re)
{
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

// v3.0 to v5.3.0: a literal in __init__.py; v5.3.4 on: setuptools-scm's _version.py; else the
// package metadata's source.
void read_version(const fs::path& root, Release& r)
{
  const std::pair<const char*, std::regex> sources[] = {
      {"src/flag_gems/__init__.py", std::regex(R"(__version__\s*=\s*["']([^"']+)["'])")},
      {"src/flag_gems/_version.py", std::regex(R"((?:__version__|version)\s*(?::\s*\w+\s*)?=\s*["']([^"']+)["'])")},
      {"pyproject.toml", std::regex(R"re((?:^|\n)version\s*=\s*"([^"]+)")re")},
  };
  for (const auto& [file, re] : sources) {
    if (auto v = first_match(read_or_empty(root / file), re); !v.empty()) {
      r.version = v;
      r.version_source = file;
      return;
    }
  }
}

// The values of `class BenchMode(Enum)`: its indented `NAME = "value"` lines.
std::vector<std::string> bench_modes(const std::string& text)
{
  std::vector<std::string> modes;
  const auto at = text.find("class BenchMode");
  if (at == std::string::npos) {
    return modes;
  }
  const std::regex member(R"(^[ \t]+[A-Z_0-9]+\s*=\s*["']([^"']+)["'])");
  auto lines = util::split(text.substr(text.find('\n', at) + 1), '\n');
  for (const auto& line : lines) {
    if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '#') {
      break; // the class body ended
    }
    std::smatch m;
    if (std::regex_search(line, m, member)) {
      modes.push_back(m[1].str());
    }
  }
  return modes;
}

bool has(const std::vector<std::string>& list, const std::string& s)
{
  return std::find(list.begin(), list.end(), s) != list.end();
}

using F = ReleaseField;
using util::JsonWriter;

const util::Field<Release, ReleaseField> k_fields[] = {
    {F::version, "version", [](JsonWriter& j, const Release& r) { j.nullable_value(r.version); }},
    {F::version_source, "version_source", [](JsonWriter& j, const Release& r) { j.nullable_value(r.version_source); }},
    {F::layout, "layout", [](JsonWriter& j, const Release& r) { j.value(layout_name(r.layout)); }},
    {F::options, "options", [](JsonWriter& j, const Release& r) { j.value(r.options); }},
    {F::modes, "modes", [](JsonWriter& j, const Release& r) { j.value(r.modes); }},
};

} // namespace

Release read_release(const std::string& flaggems_dir)
{
  const fs::path root(flaggems_dir);
  Release r;
  read_version(root, r);
  const auto bench = root / "benchmark";
  r.layout = layout_of(flaggems_dir);
  const auto conftest = read_or_empty(bench / "conftest.py");
  // `addoption("--level", ...)`, and v3.0's `addoption(("--mode" if ... else "--fg_mode"), ...)`.
  const std::regex option(R"((?:addoption\(\s*\(?|\belse)\s*["'](--[A-Za-z0-9_-]+)["'])");
  for (std::sregex_iterator it(conftest.begin(), conftest.end(), option), end; it != end; ++it) {
    if (!has(r.options, (*it)[1].str())) {
      r.options.push_back((*it)[1].str());
    }
  }
  r.conftest_read = !r.options.empty();
  for (const auto* helper : {"consts.py", "attri_util.py"}) {
    if (r.modes.empty()) {
      r.modes = bench_modes(read_or_empty(bench / helper));
    }
  }
  return r;
}

Layout layout_of(const std::string& flaggems_dir)
{
  const auto bench = fs::path(flaggems_dir) / "benchmark";
  if (fs::is_regular_file(bench / "base.py")) {
    return Layout::per_op;
  }
  return fs::is_regular_file(bench / "performance_utils.py") ? Layout::category : Layout::unknown;
}

const char* layout_name(Layout layout)
{
  switch (layout) {
  case Layout::per_op:
    return "per_op";
  case Layout::category:
    return "category";
  case Layout::unknown:
    break;
  }
  return "unknown";
}

std::string describe(const Release& r)
{
  return r.version.empty() ? std::string("a FlagGems checkout of unknown version") : "FlagGems " + r.version;
}

bool mode_names_device(const Release& r)
{
  // v3.0: category files, a --mode and no BenchMode. A tree of another shape without BenchMode
  // (a fork, a test tree) says nothing of its modes: nothing is assumed.
  return r.layout == Layout::category && has(r.options, "--mode") && r.modes.empty();
}

void check_release(const Release& r, const std::string& mode, const std::vector<std::string>& zl_args,
                   const std::vector<std::string>& extra_args)
{
  if (mode_names_device(r) && mode != "kernel") {
    throw Error(fmt::format("{} has no --mode {}: its benchmark conftest's --mode names the device (kernel timing, "
                            "the default) or cpu, and has no operator, wrapper or cudagraph mode (they came with "
                            "v4.2.0 and v5.3.1); use --mode kernel, for which zl passes no --mode",
                            describe(r), mode));
  }
  if (!r.modes.empty() && !has(r.modes, mode)) {
    throw Error(fmt::format("{} has no --mode {}: its BenchMode offers {} (cudagraph came with v5.3.1); pick one "
                            "of those, or a FlagGems release that has it",
                            describe(r), mode, util::join(r.modes, ", ")));
  }
  if (!r.conftest_read) {
    return;
  }
  for (const auto* args : {&zl_args, &extra_args}) {
    for (const auto& arg : *args) {
      const auto name = arg.substr(0, arg.find('='));
      if (std::find(std::begin(k_flaggems_options), std::end(k_flaggems_options), name) ==
              std::end(k_flaggems_options) ||
          has(r.options, name)) {
        continue;
      }
      throw Error(fmt::format("{} has no option {} (its benchmark conftest registers {}); {}", describe(r), name,
                              util::join(r.options, " "),
                              args == &extra_args ? "leave it out of the arguments after --, or use a release "
                                                    "that has it (docs/flaggems-releases.md)"
                                                  : "zl passes it for the option you gave; use a FlagGems tree "
                                                    "whose conftest has it"));
    }
  }
}

void to_json(JsonWriter& j, const Release& r, std::initializer_list<util::Pick<ReleaseField>> fields)
{
  util::write_fields(j, k_fields, r, fields);
}

} // namespace zl::run
