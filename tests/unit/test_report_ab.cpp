#include "report/data.hpp"

#include <doctest/doctest.h>

using namespace zl::report;
using zl::results::compare::OpComparison;
using zl::results::compare::Verdict;

TEST_CASE("zl::report::op_verdict")
{
  OpComparison op;
  CHECK(op_verdict(op) == Verdict::none);
  auto set = [&](Verdict v, std::size_t n) { op.verdicts[static_cast<std::size_t>(v)] = n; };
  set(Verdict::same, 3);
  CHECK(op_verdict(op) == Verdict::same);
  set(Verdict::ambiguous, 1);
  CHECK(op_verdict(op) == Verdict::ambiguous);
  set(Verdict::faster, 1);
  CHECK(op_verdict(op) == Verdict::faster);
  set(Verdict::slower, 1); // a regression is what a reader must see
  CHECK(op_verdict(op) == Verdict::slower);
}
