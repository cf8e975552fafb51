#include "results/parse/marker_names.hpp"

#include "fixture.hpp"
#include "results/parse/markers.hpp"

#include <boost/filesystem.hpp>
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

namespace names = zl::results::parse::marker_names;

namespace {

// Every NAME the plugins pass to zl_plan.marker("NAME", …) or zl_plan.format_marker("NAME", …),
// each with the first file that writes it.
std::map<std::string, std::string> python_marker_names()
{
  namespace fs = boost::filesystem;
  const fs::path dir = zl::test::fixture_path("../../python/zl_plugins");
  REQUIRE(fs::is_directory(dir));
  const std::regex call(R"(\b(?:format_)?marker\(\s*["']([A-Z][A-Z0-9_]*)["'])");
  std::map<std::string, std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") {
      continue;
    }
    const auto text = zl::test::read_fixture("../../python/zl_plugins/" + entry.path().filename().string());
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      found.emplace((*it)[1].str(), entry.path().filename().string());
    }
  }
  return found;
}

} // namespace

TEST_CASE("zl::results::parse::marker_names: the plugins write exactly the names the C++ side spells")
{
  const auto python = python_marker_names();
  REQUIRE(python.size() >= 10); // the regular expression still finds the calls
  const std::set<std::string> cpp(names::k_plugins.begin(), names::k_plugins.end());
  for (const auto& written : python) {
    const auto& name = written.first;
    CHECK_MESSAGE(cpp.count(name) == 1, name, " is written by ", written.second,
                  " but has no constant in marker_names.hpp's k_plugins");
  }
  for (const auto& name : cpp) {
    CHECK_MESSAGE(python.count(name) == 1, name, " is in marker_names.hpp's k_plugins but no plugin writes it");
  }
}

TEST_CASE("zl::results::parse::marker_names: the markers whose malformed lines are reported are spelled here")
{
  using zl::results::parse::is_known_marker;
  for (const auto name :
       {names::k_zl_run, names::k_zl_timer, names::k_benchmark_direct_no_cudagraph, names::k_benchmark_capture_poisoned,
        names::k_autotune_replay_fallback, names::k_preflight_failed, names::k_zl_unsupported}) {
    CHECK(is_known_marker(name));
  }
  CHECK_FALSE(is_known_marker("BENCHMARK_DIRECT_NO_CUDAGRAP"));
}
