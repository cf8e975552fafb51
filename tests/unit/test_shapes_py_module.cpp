#include "shapes/py_module.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace zl::shapes;

TEST_CASE("zl::shapes::scan_module: imports in every form")
{
  const auto m = scan_module("from . import base, consts\nfrom .base import BlasBenchmark as Blas, *\n"
                             "import benchmark.base as bb\nimport os.path\nfrom benchmark.base import (A,\n  B as C)\n",
                             "t.py");
  REQUIRE(m.imports.size() == 8);
  CHECK(m.imports[0].local == "base");
  CHECK(m.imports[0].module == ".");
  CHECK(m.imports[0].name == "base");
  CHECK(m.imports[2].local == "Blas");
  CHECK(m.imports[2].module == ".base");
  CHECK(m.imports[2].name == "BlasBenchmark");
  CHECK(m.imports[3].name == "*");
  CHECK(m.imports[4].local == "bb");
  CHECK(m.imports[4].module == "benchmark.base");
  CHECK(m.imports[5].local == "os");
  CHECK(m.imports[7].local == "C");
  CHECK(m.imports[7].name == "B");
}

TEST_CASE("zl::shapes::scan_module: classes, functions, decorators and calls")
{
  const auto m = scan_module(R"(pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("x")]

class A(base.Benchmark, metaclass=Meta):
    """class Fake(Nothing): in a docstring"""
    def method(self):
        return helper(op_name="inner")

@pytest.mark.parametrize("shape", [(1, 2), dict(k=f(3))])
@pytest.mark.abs
def test_abs(shape):
    bench = A(torch_op=torch.abs,
              op_name="a" 'bs', dtypes=[x for x in y])
    bench.run()

def one_liner(): return B(op_name=name)
)",
                             "benchmark/test_abs.py");
  REQUIRE(m.classes.size() == 1);
  CHECK(m.classes[0].name == "A");
  CHECK(m.classes[0].bases == std::vector<std::string>{"base.Benchmark"});
  CHECK(m.classes[0].line == 3);
  REQUIRE(m.functions.size() == 3);
  CHECK(m.functions[0].cls == "A");
  CHECK(m.functions[1].name == "test_abs");
  CHECK(m.functions[1].decorators == std::vector<std::string>{"pytest.mark.parametrize", "pytest.mark.abs"});
  CHECK(markers_of(m, m.functions[1]) == std::vector<std::string>{"abs", "slow"});

  const Call* a = nullptr;
  const Call* b = nullptr;
  for (const auto& c : m.calls) {
    a = c.callee == "A" ? &c : a;
    b = c.callee == "B" ? &c : b;
  }
  REQUIRE(a != nullptr);
  CHECK(a->function == "test_abs");
  CHECK(a->line == 11);
  REQUIRE(a->keyword("op_name") != nullptr);
  CHECK(a->keyword("op_name")->literal == std::optional<std::string>("abs"));
  CHECK(a->keyword("dtypes")->text == "[x for x in y]");
  CHECK_FALSE(a->keyword("dtypes")->literal);
  REQUIRE(b != nullptr);
  CHECK(b->function == "one_liner"); // a body on the def's own line belongs to it
  CHECK(b->keyword("op_name")->text == "name");
  CHECK_FALSE(b->keyword("op_name")->literal);
  // nested calls are calls too; the one in the decorator is at module level
  CHECK(
      std::any_of(m.calls.begin(), m.calls.end(), [](const Call& c) { return c.callee == "f" && c.function.empty(); }));
  CHECK(std::any_of(m.calls.begin(), m.calls.end(),
                    [](const Call& c) { return c.callee == "helper" && c.function == "method"; }));
  CHECK(std::none_of(m.calls.begin(), m.calls.end(), [](const Call& c) { return c.callee == "Fake"; }));
}

TEST_CASE("zl::shapes::scan_module: source it cannot follow is an error naming file and line")
{
  CHECK_THROWS_WITH_AS(scan_module("x = 1\ny = \"open\n", "benchmark/test_bad.py"),
                       "benchmark/test_bad.py:2: cannot read this Python source: the string opened on line 2 is "
                       "never closed",
                       zl::Error);
}
