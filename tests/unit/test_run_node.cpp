#include "run/node.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <fstream>

using zl::run::resolve_node;
using zl::test::TempDir;

TEST_CASE("zl::run::resolve_node")
{
  TempDir fg;
  boost::filesystem::create_directories(fg / "benchmark/test_FLA");
  std::ofstream(fg / "benchmark/test_abs.py") << "@pytest.mark.abs\ndef test_abs():\n    pass\n";
  std::ofstream(fg / "benchmark/test_blas.py")
      << "@pytest.mark.mm\ndef test_mm():\n    bench = base.BlasBenchmark(op_name=\"mm\", input_fn=f)\n";
  std::ofstream(fg / "benchmark/test_FLA/test_chunk.py") << "def test_x():\n    Bench(op_name='chunk_gla')\n";

  SUBCASE("an op maps to benchmark/test_<op>.py and selects its marker")
  {
    const auto n = resolve_node(fg.path(), "abs", "", "");
    CHECK(n.node == "benchmark/test_abs.py");
    CHECK(n.marker == "abs");
    CHECK(n.op == "abs");
    CHECK(n.how == "benchmark/test_abs.py exists");
  }
  SUBCASE("else the module that marks it")
  {
    const auto n = resolve_node(fg.path(), "mm", "", "");
    CHECK(n.file == "benchmark/test_blas.py");
    CHECK(n.marker == "mm");
    CHECK(n.how == "no benchmark/test_mm.py; benchmark/test_blas.py marks it");
  }
  SUBCASE("else the module that names it in op_name=, run whole")
  {
    const auto n = resolve_node(fg.path(), "chunk_gla", "", "");
    CHECK(n.file == "benchmark/test_FLA/test_chunk.py");
    CHECK(n.marker.empty());
  }
  SUBCASE("nothing: the file that would be, for preflight to report")
  {
    const auto n = resolve_node(fg.path(), "nope", "", "");
    CHECK(n.file == "benchmark/test_nope.py");
    CHECK(n.how == "no benchmark/test_nope.py and no module marks or names 'nope'");
  }
  SUBCASE("a node is taken as given; the op is its function minus test_")
  {
    const auto n = resolve_node(fg.path(), "", "", "benchmark/test_sort.py::test_perf_sort[float16]");
    CHECK(n.node == "benchmark/test_sort.py::test_perf_sort[float16]");
    CHECK(n.file == "benchmark/test_sort.py");
    CHECK(n.op == "perf_sort");
  }
  SUBCASE("an op file runs whole")
  {
    const auto n = resolve_node(fg.path(), "", fg / "benchmark/test_abs.py", "");
    CHECK(n.node == "benchmark/test_abs.py");
    CHECK(n.marker.empty());
  }
}

TEST_CASE("zl::run::to_json(Node)")
{
  using F = zl::run::NodeField;
  zl::run::Node n;
  n.node = "benchmark/test_abs.py";
  n.op = "abs";
  n.how = "benchmark/test_abs.py exists";
  const auto text = [&](std::initializer_list<zl::util::Pick<F>> fields) {
    zl::util::JsonWriter j;
    j.w().StartObject();
    to_json(j, n, fields);
    j.w().EndObject();
    return j.text();
  };
  SUBCASE("run_identity.json's node object: no marker is null")
  {
    CHECK(text({F::op, F::node, F::marker, F::resolution}) ==
          "{\n  \"op\": \"abs\",\n  \"node\": \"benchmark/test_abs.py\",\n  \"marker\": null,\n"
          "  \"resolution\": \"benchmark/test_abs.py exists\"\n}\n");
  }
  SUBCASE("plan.json's top-level fields keep their published name")
  {
    n.marker = "abs";
    CHECK(text({F::marker, {F::resolution, "node_resolution"}}) ==
          "{\n  \"marker\": \"abs\",\n  \"node_resolution\": \"benchmark/test_abs.py exists\"\n}\n");
  }
}
