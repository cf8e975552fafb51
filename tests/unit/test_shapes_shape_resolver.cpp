#include "shapes/shape_resolver.hpp"

#include "fixture.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fstream>

using namespace zl::shapes;
using zl::test::fixture_path;

namespace {

// tests/fixtures/shapes_flaggems: a FlagGems-shaped folder with the forms of reference §2.
Resolution resolve(const std::string& module, const std::string& op, const std::string& shape_file = "")
{
  return resolve_shapes({fixture_path("shapes_flaggems"), "benchmark/" + module, op, shape_file});
}

} // namespace

TEST_CASE("zl::shapes::resolve_shapes: BLAS ops find their class key, not their op name")
{
  const auto r = resolve("test_mm.py", "mm");
  REQUIRE(r.complete());
  REQUIRE(r.targets.size() == 1);
  const auto& t = r.targets[0];
  CHECK(t.key == "BlasBenchmark");
  CHECK(t.candidates == std::vector<std::string>{"mm", "BlasBenchmark", "Benchmark", "object"});
  CHECK(t.shapes == std::vector<std::string>{"[2, 384, 384, 384]", "[16, 1024, 1024, 1024]", "[2, 4096, 4096, 4096]"});
  CHECK(t.shape_desc == "B, M, N, K");
  CHECK(t.certain);
  CHECK(r.keys() == std::vector<std::string>{"BlasBenchmark"});
}

TEST_CASE("zl::shapes::resolve_shapes: an op key wins over the chain; a class of the test module is followed")
{
  const auto r = resolve("test_mm.py", "mm_self_transpose");
  REQUIRE(r.complete());
  CHECK(r.targets[0].key == "mm_self_transpose");
  CHECK(r.targets[0].calls[0].chain[0].where == "benchmark/test_mm.py:23");
  CHECK(r.targets[0].candidates[2] == "GenericBenchmark2DOnly");
}

TEST_CASE("zl::shapes::resolve_shapes: strings, comments, decorators, continuations and aliases")
{
  SUBCASE("a class chain through two classes of the test module; op_name split over a continuation")
  {
    const auto r = resolve("test_tricky.py", "tricky");
    REQUIRE(r.complete());
    REQUIRE(r.targets.size() == 1); // the docstring and the comment that say op_name="tricky" are not calls
    CHECK(r.targets[0].key == "UnaryPointwiseBenchmark");
    CHECK(r.targets[0].candidates ==
          std::vector<std::string>{"tricky", "Local", "LocalBase", "UnaryPointwiseBenchmark", "Benchmark", "object"});
  }
  SUBCASE("an imported alias with a positional op_name")
  {
    CHECK(resolve("test_tricky.py", "blas_alias").targets[0].key == "BlasBenchmark");
  }
  SUBCASE("a constructor nested in another call")
  {
    CHECK(resolve("test_tricky.py", "nested").targets[0].key == "Benchmark");
  }
  SUBCASE("a class imported from a sibling test module")
  {
    const auto r = resolve("test_shift_.py", "shift_");
    REQUIRE(r.complete());
    CHECK(r.targets[0].calls[0].chain[0].where == "benchmark/test_shift.py:7");
    CHECK(r.targets[0].key == "GenericBenchmark2DOnly");
  }
  SUBCASE("a mixin of the module before a base.py class; a one-line def")
  {
    const auto r = resolve("test_tricky.py", "mixed");
    CHECK(r.targets[0].candidates[2] == "Mixin");
    CHECK(r.targets[0].key == "UnaryPointwiseBenchmark");
  }
}

TEST_CASE("zl::shapes::resolve_shapes: merge keys, guesses, and what cannot be resolved")
{
  SUBCASE("vdot's entry is `<<: *single_dim_shapes`")
  {
    const auto r = resolve("test_more.py", "vdot");
    REQUIRE(r.complete());
    CHECK(r.targets[0].shapes == std::vector<std::string>{"[64]", "[1024]"});
    CHECK(r.targets[0].shape_desc == "M");
  }
  SUBCASE("op_name passed through a helper: the class is a guess, and says so")
  {
    const auto r = resolve("test_more.py", "float_power_scalar");
    REQUIRE(r.complete());
    CHECK_FALSE(r.targets[0].certain);
    CHECK(r.targets[0].key == "Benchmark");
    REQUIRE(r.notes.size() == 1);
    CHECK(r.notes[0].find("does not name its op literally") != std::string::npos);
  }
  SUBCASE("a key without a shapes list is not a resolution: FlagGems would use DEFAULT_SHAPES")
  {
    const auto r = resolve("test_more.py", "no_shapes");
    CHECK_FALSE(r.complete());
    CHECK(r.targets[0].key == "NoShapesBenchmark");
    CHECK(r.targets[0].problem.find("DEFAULT_SHAPES") != std::string::npos);
  }
  SUBCASE("a total miss lists every candidate tried")
  {
    zl::test::TempDir dir;
    std::ofstream(dir / "other.yaml") << "abs:\n  shapes: [[4]]\n";
    const auto r = resolve("test_mm.py", "mm", dir / "other.yaml");
    CHECK_FALSE(r.complete());
    CHECK(r.targets[0].key.empty());
    CHECK(r.tried() == std::vector<std::string>{"mm", "BlasBenchmark", "Benchmark", "object"});
  }
  SUBCASE("an op the module never constructs: only its name is looked up, and the note says what it does construct")
  {
    const auto r = resolve("test_mm.py", "addmm");
    CHECK(r.tried() == std::vector<std::string>{"addmm"});
    REQUIRE(r.notes.size() == 1);
    CHECK(r.notes[0].find("it constructs mm (BlasBenchmark, line 13), mm_self_transpose") != std::string::npos);
  }
}

TEST_CASE("zl::shapes::lookup_entry and load_shape_file")
{
  const auto root = YAML::Load("a: &a {shapes: [[1]], shape_desc: M}\nb: {<<: *a, shape_desc: N}\nc: [1]\n");
  const auto b = lookup_entry(root, "b");
  CHECK(flow_text(b["shapes"]) == "[[1]]");
  CHECK(b["shape_desc"].as<std::string>() == "N"); // an explicit key wins over the merged one
  CHECK_FALSE(b["<<"]);
  CHECK_FALSE(lookup_entry(root, "missing"));
  zl::test::TempDir dir;
  std::ofstream(dir / "list.yaml") << "- 1\n";
  CHECK_THROWS_AS(load_shape_file(dir / "list.yaml"), zl::Error);
  std::ofstream(dir / "bad.yaml") << "a: [1\n";
  CHECK_THROWS_AS(load_shape_file(dir / "bad.yaml"), zl::Error);
}

TEST_CASE("zl::shapes: a key that is a list or a mapping is an error, as in PyYAML")
{
  // tests/fuzz/regressions/shape_yaml/merge-source-with-mapping-key (fuzz_shape_yaml): a mapping
  // key in a merged anchor escaped as yaml-cpp's "bad conversion", not a zl::Error: zl's internal
  // error (exit 70) naming neither the file nor the fix.
  const auto found = YAML::Load(zl::test::read_fixture("../fuzz/regressions/shape_yaml/merge-source-with-mapping-key"));
  CHECK_THROWS_WITH_AS(lookup_entry(found, "Benchmark"),
                       doctest::Contains("line 2, column 4 is a mapping, which PyYAML refuses"), zl::Error);
  const auto merged = YAML::Load("base: &b\n  ? [a, b]\n  : 1\n  shapes: [[1]]\nabs:\n  <<: *b\n");
  CHECK_THROWS_WITH_AS(lookup_entry(merged, "abs"),
                       doctest::Contains("merged into key abs: the key at line 2, column 5 is a list"), zl::Error);
  CHECK(flow_text(lookup_entry(merged, "base")["shapes"]) == "[[1]]"); // an entry that merges nothing is read as it is
  zl::test::TempDir dir;
  std::ofstream(dir / "top.yaml") << "abs: {shapes: [[1]]}\n? [mm]\n: {shapes: [[2]]}\n";
  CHECK_THROWS_WITH_AS(load_shape_file(dir / "top.yaml"),
                       doctest::Contains("top.yaml: the key at line 2, column 3 is a list"), zl::Error);
  Resolution r;
  r.shape_file = dir / "merge.yaml";
  std::ofstream(r.shape_file) << "base: &b\n  ? {x: 1}\n  : 1\nabs:\n  <<: *b\n";
  r.targets.push_back({});
  r.targets.back().candidates = {"abs"};
  CHECK_THROWS_WITH_AS(look_up_shapes(r), doctest::Contains("merge.yaml: in the mapping merged into key abs"),
                       zl::Error);
}
