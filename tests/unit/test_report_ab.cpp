#include "report/data.hpp"

#include "results_helpers.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

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

TEST_CASE("zl::report::write_ab: each pairing's interval and q")
{
  std::vector<zl::results::Run> a, b;
  a.push_back(zl::test::run_of(
      zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.5}, {"[torch.Size([128])]", 1.0, 0.6}})));
  b.push_back(zl::test::run_of(
      zl::test::table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.4}, {"[torch.Size([128])]", 1.0, 0.6}})));
  zl::results::compare::AbResult r;
  r.ops.emplace_back().op = "abs";
  // With samples: B 20% faster, its interval, the U test's p replaced by the samples'.
  auto& with = r.pairings.emplace_back();
  with.row = &a[0].rows[0];
  with.a_ms = 0.5, with.b_ms = 0.4, with.ratio = 0.8;
  with.diff = -0.2, with.diff_lo = -0.25, with.diff_hi = -0.15, with.p = 0.001, with.q = 0.002;
  with.test.p = 0.5;
  with.verdict = Verdict::faster;
  // Without: as before, the rounds' U test; no interval.
  auto& without = r.pairings.emplace_back();
  without.row = &a[0].rows[1];
  without.a_ms = 0.6, without.b_ms = 0.6, without.ratio = 1.0;
  without.test.p = 0.7;
  without.verdict = Verdict::same;
  AbSides sides{"/a", "/b", &a, &b, false, {}};
  std::size_t cut = 0;
  Json j;
  write_ab(j, r, sides, &cut);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  const auto& p = d["pairings"];
  REQUIRE(p.Size() == 2);
  // [op index, dtype, shape, a_ms, b_ms, ratio, verdict, p, diff, diff_lo, diff_hi, q]
  REQUIRE(p[0].Size() == 12);
  CHECK(std::string(p[0][6].GetString()) == "faster");
  CHECK(p[0][7].GetDouble() == doctest::Approx(0.001));
  CHECK(p[0][8].GetDouble() == doctest::Approx(-0.2));
  CHECK(p[0][9].GetDouble() == doctest::Approx(-0.25));
  CHECK(p[0][10].GetDouble() == doctest::Approx(-0.15));
  CHECK(p[0][11].GetDouble() == doctest::Approx(0.002));
  CHECK(std::string(p[1][6].GetString()) == "same");
  CHECK(p[1][7].GetDouble() == doctest::Approx(0.7));
  for (rapidjson::SizeType k = 8; k < 12; ++k) {
    CHECK(p[1][k].IsNull());
  }
}
