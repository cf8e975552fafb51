#include "shapes/class_chain.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

using namespace zl::shapes;

namespace {

const char* const k_base = R"(class Benchmark:
    pass

class GenericBenchmark(Benchmark):
    pass

class BlasBenchmark(Benchmark):
    pass

def generate_tensor_input(shape):
    pass
)";

std::vector<std::string> names(const std::vector<ChainLink>& chain)
{
  std::vector<std::string> out;
  for (const auto& l : chain) {
    out.push_back(l.name);
  }
  return out;
}

ClassChains chains(const std::string& test)
{
  return ClassChains(scan_module(test, "benchmark/test_x.py"), scan_module(k_base, "benchmark/base.py"));
}

} // namespace

TEST_CASE("zl::shapes::ClassChains: the class a callee names, and its MRO")
{
  const auto c = chains("from . import base\nfrom .base import BlasBenchmark as Blas\nimport benchmark.base\n"
                        "class Local(base.GenericBenchmark):\n    pass\n");
  const auto& m = c.test_module();
  CHECK(names(*c.chain("base.BlasBenchmark", m)) == std::vector<std::string>{"BlasBenchmark", "Benchmark", "object"});
  CHECK(names(*c.chain("Blas", m)) == std::vector<std::string>{"BlasBenchmark", "Benchmark", "object"});
  CHECK(names(*c.chain("benchmark.base.GenericBenchmark", m)) ==
        std::vector<std::string>{"GenericBenchmark", "Benchmark", "object"});
  const auto local = *c.chain("Local", m);
  CHECK(names(local) == std::vector<std::string>{"Local", "GenericBenchmark", "Benchmark", "object"});
  CHECK(local[0].where == "benchmark/test_x.py:4");
  CHECK(local[1].where == "benchmark/base.py:4");
  CHECK_FALSE(c.chain("base.generate_tensor_input", m)); // a function of base.py, not a class
  CHECK_FALSE(c.chain("Unknown", m));
  CHECK_FALSE(c.chain("torch.Tensor", m));
}

TEST_CASE("zl::shapes::ClassChains: multiple inheritance follows C3, as type.__mro__ does")
{
  const auto c = chains("from . import base\nclass A(base.Benchmark): pass\nclass B(A): pass\nclass C(A): pass\n"
                        "class D(B, C, Mixin): pass\n");
  CHECK(names(*c.chain("D", c.test_module())) ==
        std::vector<std::string>{"D", "B", "C", "A", "Benchmark", "Mixin", "object"});
}

TEST_CASE("zl::shapes::ClassChains: circular bases are an error, not a hang")
{
  const auto c = chains("class A(B): pass\nclass B(A): pass\n");
  CHECK_THROWS_AS(c.chain("A", c.test_module()), zl::Error);
}

TEST_CASE("zl::shapes::ClassChains::constructions")
{
  const auto c = chains(R"(from . import base

@pytest.mark.mm
def test_mm():
    base.BlasBenchmark(input_fn=f, op_name="mm", torch_op=torch.mm).run()

def test_positional():
    base.GenericBenchmark("pos", torch.abs, input_fn=f).run()

def test_helper(name):
    base.GenericBenchmark(op_name=name, input_fn=f)
    base.generate_tensor_input((2, 2))
    Config(op_name="not a benchmark")
)");
  const auto all = c.constructions();
  REQUIRE(all.size() == 3);
  CHECK(all[0].op_name == std::optional<std::string>("mm"));
  CHECK(all[0].markers == std::vector<std::string>{"mm"});
  CHECK(all[0].chain.front().name == "BlasBenchmark");
  CHECK(all[1].op_name == std::optional<std::string>("pos"));
  CHECK_FALSE(all[2].op_name);
  CHECK(all[2].op_name_text == "name");
}
