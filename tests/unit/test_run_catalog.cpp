#include "run/catalog.hpp"
#include "run/node.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using zl::run::files_marking;
using zl::run::read_catalog;
using zl::test::TempDir;

namespace {

using Files = std::vector<std::string>;

// Constructed category files, shaped like FlagGems v4.2.0's three ways of marking an op.
void category_tree(const TempDir& fg)
{
  boost::filesystem::create_directories(fg / "benchmark");
  std::ofstream(fg / "benchmark/test_special_perf.py")
      << "@pytest.mark.isin\ndef test_isin_perf():\n    pass\n\n@pytest.mark.parametrize('x', [1])\n"
         "@pytest.mark.rms_norm\ndef tes_rms_norm():  # v5.0.2's typo: no test\n    Bench(op_name='rms_norm')\n"
         "@pytest.mark.skipif(True, reason='r')\ndef test_other(x):\n    pass\n";
  std::ofstream(fg / "benchmark/test_blas_perf.py")
      << "@pytest.mark.parametrize('name', [pytest.param('mm', marks=pytest.mark.mm),\n"
         "    pytest.param('addmm', marks=[pytest.mark.addmm, pytest.mark.skipif(False, reason='x')])])\n"
         "def test_blas_benchmark(name):\n    pass\n";
  std::ofstream(fg / "benchmark/test_unary_pointwise_perf.py")
      << "forward_operations = [('abs', 1), ('neg', 2)]\n"
         "@pytest.mark.parametrize('name, op', [pytest.param(name, op, marks=getattr(pytest.mark, name, None))\n"
         "    for name, op in forward_operations])\ndef test_general_unary_pointwise_perf(name, op):\n    pass\n";
  std::ofstream(fg / "benchmark/performance_utils.py") << "class Benchmark:\n    pass\n";
}

// A stand-in interpreter: writes what zl_collect would for the unary file, counting its runs.
std::string fake_python(const TempDir& dir, const std::string& document, int exit_code = 0)
{
  auto path = dir / "python";
  std::ofstream(path) << "#!/bin/sh\necho run >> \"" << dir / "runs"
                      << "\"\n"
                      << "case \"$*\" in *--collect-only*-p\\ zl_collect*benchmark/test_unary_pointwise_perf.py*) ;; "
                         "*) echo \"unexpected arguments: $*\" >&2; exit 9;; esac\n"
                      << "[ -n \"$ZL_COLLECT_OUT\" ] && [ -n '" << document << "' ] && printf '%s' '" << document
                      << "' > \"$ZL_COLLECT_OUT\"\n"
                      << "echo 'E   ModuleNotFoundError: No module named torch' >&2\nexit " << exit_code << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

int runs(const TempDir& dir)
{
  std::ifstream in(dir / "runs");
  std::stringstream s;
  s << in.rdbuf();
  const auto text = s.str();
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// What zl_collect writes for category_tree: rms_norm's mark stands on no test, so no item has it.
std::string document(const std::string& errors = "")
{
  const auto item = [](const char* file, const char* mark) {
    return std::string(R"({"nodeid": "x", "function": "t", "file": "benchmark/)") + file + R"(", "marks": [")" + mark +
           R"(", "parametrize"]})";
  };
  return R"({"format": 1, "items": [)" + item("test_unary_pointwise_perf.py", "abs") + ", " +
         item("test_unary_pointwise_perf.py", "neg") + ", " + item("test_blas_perf.py", "mm") + ", " +
         item("test_blas_perf.py", "addmm") + ", " + item("test_special_perf.py", "isin") + R"(], "errors": [)" +
         errors + "]}";
}

} // namespace

TEST_CASE("zl::run::read_catalog and collect_uncertain")
{
  TempDir fg;
  TempDir tools;
  TempDir cache;
  category_tree(fg);
  ::setenv("ZL_CACHE_DIR", cache.path().c_str(), 1);

  SUBCASE("marks written out are read statically; in a category layout every file is uncertain")
  {
    const auto c = read_catalog(fg.path());
    CHECK(files_marking(c, "isin") == Files{"benchmark/test_special_perf.py"});
    CHECK(files_marking(c, "mm") == Files{"benchmark/test_blas_perf.py"});
    CHECK(files_marking(c, "addmm") == Files{"benchmark/test_blas_perf.py"});
    CHECK(files_marking(c, "skipif").empty());
    CHECK(files_marking(c, "abs").empty());
    CHECK(c.uncertain == Files{"benchmark/test_blas_perf.py", "benchmark/test_special_perf.py",
                               "benchmark/test_unary_pointwise_perf.py"});
    boost::filesystem::remove(fg / "benchmark/performance_utils.py"); // one file per op: only computed marks
    CHECK(read_catalog(fg.path()).uncertain == Files{"benchmark/test_unary_pointwise_perf.py"});
  }
  SUBCASE("the collection is the authority: a mark on no test is no op")
  {
    auto c = read_catalog(fg.path());
    CHECK(files_marking(c, "rms_norm") == Files{"benchmark/test_special_perf.py"});
    zl::run::collect_uncertain(c, fg.path(), fake_python(tools, document()));
    CHECK(files_marking(c, "rms_norm").empty());
    CHECK(zl::run::marked_ops(c) == Files{"abs", "addmm", "isin", "mm", "neg"});
    const auto n = zl::run::resolve_node(fg.path(), "rms_norm", "", "", fake_python(tools, document()));
    CHECK(n.node == "benchmark/test_rms_norm.py"); // not the whole file that names it, under its name
    CHECK(n.problem.find("finds no test of it marked rms_norm") != std::string::npos);
    const auto in_file = zl::run::resolve_node(fg.path(), "rms_norm", "benchmark/test_special_perf.py", "",
                                               fake_python(tools, document()));
    CHECK(in_file.marker.empty());
    CHECK(in_file.problem.find("finds no test in benchmark/test_special_perf.py marked rms_norm") != std::string::npos);
  }
  SUBCASE("a file the collection could not import is named where an op is missing")
  {
    const auto python =
        fake_python(tools, document(R"({"file": "benchmark/test_x_perf.py", "error": "ImportError: boom"})"));
    const auto n = zl::run::resolve_node(fg.path(), "resolve_neg", "", "", python);
    CHECK(n.problem.find("could not import benchmark/test_x_perf.py: ImportError: boom") != std::string::npos);
  }
  SUBCASE("pytest's collection adds the computed marks, once: the second reading is the cache's")
  {
    const auto python = fake_python(tools, document());
    auto c = read_catalog(fg.path());
    zl::run::collect_uncertain(c, fg.path(), python);
    CHECK(c.collected);
    CHECK(c.collection.find("now cached in " + cache.path()) != std::string::npos);
    CHECK(files_marking(c, "abs") == Files{"benchmark/test_unary_pointwise_perf.py"});
    CHECK(files_marking(c, "parametrize").empty());
    auto again = read_catalog(fg.path());
    zl::run::collect_uncertain(again, fg.path(), python);
    CHECK(again.collection.rfind("pytest's collection, cached in", 0) == 0);
    CHECK(runs(tools) == 1);
    // A changed benchmark file is another tree: collected again.
    std::ofstream(fg / "benchmark/test_unary_pointwise_perf.py", std::ios::app) << "# changed\n";
    auto changed = read_catalog(fg.path());
    zl::run::collect_uncertain(changed, fg.path(), python);
    CHECK(runs(tools) == 2);
  }
  SUBCASE("a cache file that is garbage or a FIFO is collected again, never read or waited on")
  {
    const auto python = fake_python(tools, document());
    auto c = read_catalog(fg.path());
    zl::run::collect_uncertain(c, fg.path(), python);
    const auto cached = c.collection.substr(c.collection.find(cache.path()));
    std::ofstream(cached) << "{not json";
    auto garbage = read_catalog(fg.path());
    zl::run::collect_uncertain(garbage, fg.path(), python);
    CHECK(garbage.collected);
    CHECK(runs(tools) == 2);
    boost::filesystem::remove(cached);
    REQUIRE(::mkfifo(cached.c_str(), 0644) == 0);
    auto fifo = read_catalog(fg.path());
    zl::run::collect_uncertain(fifo, fg.path(), python);
    CHECK(fifo.collected);
    CHECK(files_marking(fifo, "abs") == Files{"benchmark/test_unary_pointwise_perf.py"});
    CHECK(boost::filesystem::is_regular_file(cached)); // the rename replaced the FIFO
    CHECK(runs(tools) == 3);
  }
  SUBCASE("resolution: the collection's file and marker, said in the resolution")
  {
    const auto n = zl::run::resolve_node(fg.path(), "neg", "", "", fake_python(tools, document()));
    CHECK(n.node == "benchmark/test_unary_pointwise_perf.py");
    CHECK(n.marker == "neg");
    CHECK(n.how.find("benchmark/test_unary_pointwise_perf.py marks it (pytest's collection") != std::string::npos);
    CHECK(n.problem.empty());
    const auto in_file = zl::run::resolve_node(fg.path(), "abs", "benchmark/test_unary_pointwise_perf.py", "",
                                               fake_python(tools, document()));
    CHECK(in_file.marker == "abs");
  }
  SUBCASE("a failed collection is a problem that quotes pytest, not a silent miss")
  {
    const auto python = fake_python(tools, "", 4);
    auto c = read_catalog(fg.path());
    zl::run::collect_uncertain(c, fg.path(), python);
    CHECK_FALSE(c.collected);
    CHECK(c.collection.find("exit 4") != std::string::npos);
    CHECK(c.collection.find("No module named torch") != std::string::npos);
    const auto n = zl::run::resolve_node(fg.path(), "neg", "", "", python);
    CHECK(n.marker.empty());
    CHECK(n.problem.find("only pytest's collection can tell") != std::string::npos);
    CHECK(n.problem.find("No module named torch") != std::string::npos);
    CHECK(boost::filesystem::is_empty(cache / "collect"));
  }
  SUBCASE("no interpreter given: static reading alone, and the problem says so")
  {
    const auto n = zl::run::resolve_node(fg.path(), "neg", "", "");
    CHECK(n.problem.find("no interpreter was given") != std::string::npos);
    CHECK(zl::run::resolve_node(fg.path(), "mm", "", "").marker == "mm");
  }
  ::unsetenv("ZL_CACHE_DIR");
}
