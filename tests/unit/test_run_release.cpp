#include "run/release.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fstream>

using zl::run::Layout;
using zl::run::read_release;
using zl::test::TempDir;

namespace {

// Constructed conftests, shaped like each release's (docs/flaggems-releases.md, section 2).
const char* const k_v3_conftest = R"(
def pytest_addoption(parser):
    parser.addoption(
        (
            "--mode" if vendor_name != "kunlunxin" else "--fg_mode"
        ),
        action="store", default=device, choices=[device, "cpu"])
    parser.addoption("--level", action="store", default="comprehensive")
    parser.addoption(
        "--record", action="store", default="none", choices=["none", "log"])
)";
const char* const k_v4_modes = R"(
class BenchLevel(Enum):
    COMPREHENSIVE = "comprehensive"

class BenchMode(Enum):
    KERNEL = "kernel"
    OPERATOR = "operator"
    # the runtime wrapper
    WRAPPER = "wrapper"

DEFAULT_ITER_COUNT = 100
)";

void tree(const TempDir& fg, const char* helper, const char* version_file, const char* version_text)
{
  boost::filesystem::create_directories(fg / "benchmark");
  boost::filesystem::create_directories(fg / "src/flag_gems");
  std::ofstream(fg / (std::string("benchmark/") + helper)) << "class Benchmark:\n    pass\n";
  std::ofstream(fg / version_file) << version_text;
}

} // namespace

TEST_CASE("zl::run::read_release")
{
  TempDir fg;
  SUBCASE("v3.0: a category layout, --mode named after the device, version in __init__.py")
  {
    tree(fg, "performance_utils.py", "src/flag_gems/__init__.py", "import x\n__version__ = \"3.0\"\n");
    std::ofstream(fg / "benchmark/conftest.py") << k_v3_conftest;
    const auto r = read_release(fg.path());
    CHECK(r.version == "3.0");
    CHECK(r.version_source == "src/flag_gems/__init__.py");
    CHECK(r.layout == Layout::category);
    CHECK(r.options == std::vector<std::string>{"--mode", "--fg_mode", "--level", "--record"});
    CHECK(r.modes.empty());
    CHECK(zl::run::mode_names_device(r));
    CHECK_NOTHROW(zl::run::check_release(r, "kernel", {}, {}));
    CHECK_THROWS_WITH_AS(zl::run::check_release(r, "operator", {}, {}),
                         doctest::Contains("FlagGems 3.0 has no --mode operator"), zl::Error);
    CHECK_THROWS_WITH_AS(zl::run::check_release(r, "kernel", {}, {"--warmup=5"}),
                         doctest::Contains("FlagGems 3.0 has no option --warmup"), zl::Error);
    CHECK_NOTHROW(
        zl::run::check_release(r, "kernel", {"--level", "core", "--record", "log"}, {"-x", "--maxfail", "1"}));
    CHECK_THROWS_WITH_AS(zl::run::check_release(r, "kernel", {"--level", "core", "--dtypes", "float16"}, {}),
                         doctest::Contains("has no option --dtypes (its benchmark conftest registers --mode "
                                           "--fg_mode --level --record); zl passes it"),
                         zl::Error);
  }
  SUBCASE("v4.2.0: BenchMode in attri_util.py, without cudagraph")
  {
    tree(fg, "performance_utils.py", "src/flag_gems/__init__.py", "__version__ = '4.2.0'\n");
    std::ofstream(fg / "benchmark/attri_util.py") << k_v4_modes;
    std::ofstream(fg / "benchmark/conftest.py") << "parser.addoption(\"--mode\")\nparser.addoption('--parallel')\n";
    const auto r = read_release(fg.path());
    CHECK(r.modes == std::vector<std::string>{"kernel", "operator", "wrapper"});
    CHECK_FALSE(zl::run::mode_names_device(r));
    CHECK_NOTHROW(zl::run::check_release(r, "wrapper", {}, {"--parallel", "0"}));
    CHECK_THROWS_WITH_AS(zl::run::check_release(r, "cudagraph", {}, {}),
                         doctest::Contains("BenchMode offers kernel, operator, wrapper"), zl::Error);
  }
  SUBCASE("v5.3.4: per-op layout, setuptools-scm's _version.py")
  {
    tree(fg, "base.py", "src/flag_gems/_version.py", "__version__ = version = '5.3.4'\n");
    std::ofstream(fg / "benchmark/consts.py") << "class BenchMode(Enum):\n    CUDAGRAPH = \"cudagraph\"\n";
    const auto r = read_release(fg.path());
    CHECK(r.version == "5.3.4");
    CHECK(r.layout == Layout::per_op);
    CHECK_FALSE(r.conftest_read);
    CHECK(r.modes == std::vector<std::string>{"cudagraph"});
  }
  SUBCASE("no version anywhere, no helper module, no conftest: nothing is checked")
  {
    boost::filesystem::create_directories(fg / "benchmark");
    const auto r = read_release(fg.path());
    CHECK(r.version.empty());
    CHECK(r.layout == Layout::unknown);
    CHECK(zl::run::describe(r) == "a FlagGems checkout of unknown version");
    CHECK_NOTHROW(zl::run::check_release(r, "operator", {"--dtypes"}, {"--collect-marks"}));
  }
  SUBCASE("a --mode without BenchMode outside the category layout says nothing of its modes")
  {
    tree(fg, "base.py", "src/flag_gems/__init__.py", "__version__ = '9.9'\n");
    std::ofstream(fg / "benchmark/conftest.py") << "parser.addoption(\"--mode\", choices=MODES)\n";
    const auto r = read_release(fg.path());
    CHECK_FALSE(zl::run::mode_names_device(r));
    CHECK_NOTHROW(zl::run::check_release(r, "cudagraph", {}, {}));
  }
  SUBCASE("pyproject.toml's version when the package says none")
  {
    tree(fg, "base.py", "pyproject.toml", "[project]\nname = \"flag_gems\"\nversion = \"5.3.0rc2\"\n");
    CHECK(read_release(fg.path()).version == "5.3.0rc2");
  }
}
