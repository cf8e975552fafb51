#include "results/parse/test_scopes.hpp"

#include <doctest/doctest.h>

using namespace zl::results::parse;

namespace {

Scope scope(const std::string& node, const std::string& op, std::string_view timer, bool failed = false)
{
  Scope s;
  s.node = node, s.op = op, s.timer = timer, s.failed = failed;
  return s;
}

} // namespace

TEST_CASE("zl::results::parse::TestScopes: a failed test is traced to the last scope of its node")
{
  TestScopes scopes;
  CHECK(scopes.current().node.empty()); // rows before any ZL_TIMER
  scopes.open(scope("benchmark/test_a.py::test_abs", "abs", "graph"));
  scopes.current().poisoned.push_back(4);
  scopes.open(scope("benchmark/test_a.py::test_mm", "mm", "graph", true));
  scopes.open(scope("benchmark/test_a.py::test_abs", "abs", "direct"));

  SUBCASE("its last scope's op and timer; a scope of it that failed left a trace")
  {
    const auto abs = scopes.trace("test_a.py::test_abs"); // a shorter path names the same node
    CHECK(abs.found);
    CHECK(abs.op == "abs");
    CHECK(abs.timer == "direct"); // the current scope counts too
    CHECK(abs.poisoned->empty());
    CHECK_FALSE(abs.left_trace);
    CHECK(scopes.trace("benchmark/test_a.py::test_mm").left_trace);
    CHECK_FALSE(scopes.trace("benchmark/test_b.py::test_abs").found);
  }
  SUBCASE("a node met again and again is kept once, with what its scopes said together")
  {
    for (int i = 0; i < 1000; ++i) {
      scopes.open(scope("benchmark/test_a.py::test_abs", "abs", "graph", i == 500));
    }
    const auto abs = scopes.trace("benchmark/test_a.py::test_abs");
    CHECK(abs.timer == "graph");
    CHECK(abs.left_trace);
  }
}

TEST_CASE("zl::results::parse::TestScopes::unexplained: a failed test counts once, as itself only where it left "
          "nothing")
{
  TestScopes scopes;
  scopes.open(scope("benchmark/test_a.py::test_abs", "abs", "graph", true)); // a FAILED row
  scopes.current().poisoned.push_back(2);
  scopes.open(scope("benchmark/test_a.py::test_mm", "mm", "direct"));
  scopes.failed("benchmark/test_a.py::test_abs", "RuntimeError", 10);
  scopes.failed("benchmark/test_a.py::test_mm", "", 11);
  scopes.failed("benchmark/test_b.py::test_exp_out[2]", "boom", 12);
  scopes.failed("benchmark/test_b.py::test_cos", "cut befo", 13);
  scopes.unsupported("test_b.py::test_cos");
  const auto rows = scopes.unexplained("graph");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].op == "mm");
  CHECK(rows[0].timer == "direct");
  CHECK(rows[0].reason == "the test failed");
  CHECK(rows[0].line == 11);
  CHECK(rows[0].poisoned->empty());
  CHECK(rows[1].op == "exp_out");  // no scope: the node's function
  CHECK(rows[1].timer == "graph"); // no scope: the run's timer
  CHECK(rows[1].poisoned == nullptr);
}
