#include "results/compare/ab.hpp"

#include "results/parse/record_log.hpp"
#include "results_helpers.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace zl::results::compare;
using zl::results::Caliber;
using zl::results::Diagnostic;
using zl::results::Run;
using zl::results::TextStore;
using zl::results::parse::parse_record_log;
using zl::results::parse::record_rows;
using zl::test::run_of;
using zl::test::table;

namespace {

const std::string s64 = "[torch.Size([64])]", s128 = "[torch.Size([128])]", s256 = "[torch.Size([256])]";

std::vector<Run> one(const std::string& log, const Caliber& c = {"cuda", "core", "graph", "kernel", "shared"})
{
  std::vector<Run> runs;
  runs.push_back(run_of(log, c));
  return runs;
}

// One run per round: the op "abs" at shape 64 with these FlagGems latencies.
std::vector<Run> rounds(const std::vector<double>& gems)
{
  std::vector<Run> runs;
  for (const double g : gems) {
    runs.push_back(run_of(table("abs", "torch.float16", {{s64, 1.0, g}})));
  }
  return runs;
}

} // namespace

TEST_CASE("zl::results::compare::compare: pairing by op, dtype, Size Detail and occurrence")
{
  const auto a = one(table("abs", "torch.float16", {{s64, 1, 0.5}, {s128, 1, 0.5}, {s256, 1, 0.5}}) +
                     table("mm", "torch.float16", {{s64, 1, 1.0}, {s64, 1, 2.0}}) +
                     table("neg", "torch.float16", {{s64, 1, 1.0}}));
  const auto b =
      one(table("abs", "torch.float16", {{s64, 1, 0.25}, {s128, 1, 1.0}, {"[torch.Size([512])]", 1, 1}}) +
          table("abs", "torch.float32", {{s64, 1, 0.5}}) + table("mm", "torch.float16", {{s64, 1, 2.0}, {s64, 1, 0}}) +
          table("neg", "torch.float16", {{s64, 1, 0}}));
  const auto r = compare(a, b, {});
  CHECK(r.caliber_diffs.empty());
  // abs 64 (ratio 0.5), abs 128 (ratio 2), mm's first 64 (ratio 2): the second mm 64 failed on B
  REQUIRE(r.pairings.size() == 3);
  CHECK(r.pairings[0].ratio == doctest::Approx(0.5));
  CHECK(r.pairings[1].ratio == doctest::Approx(2.0));
  CHECK(r.pairings[2].op() == "mm");
  CHECK(r.pairings[2].occurrence() == 0);
  CHECK(r.pairings[2].ratio == doctest::Approx(2.0));
  CHECK(r.pairings[0].torch_ratio == doctest::Approx(1.0));
  CHECK(r.pairings[0].verdict == Verdict::none); // one round: no test
  REQUIRE(r.ops.size() == 3);
  CHECK(r.ops[0].op == "abs");
  CHECK(r.ops[0].pairs == 2);
  CHECK(r.ops[0].geomean == doctest::Approx(1.0));
  CHECK(r.ops[0].min == doctest::Approx(0.5));
  CHECK(r.ops[0].max == doctest::Approx(2.0));
  CHECK(r.ops[0].unpaired == 3);
  CHECK(r.total.pairs == 3);
  // Unpaired: abs 256 only in A, abs 512 and abs float32 only in B — listed, not dropped.
  REQUIRE(r.unpaired.size() == 3);
  CHECK(r.unpaired[0].side == 'A');
  CHECK(r.unpaired[0].shape == s256);
  CHECK(r.unpaired[0].where == "run.log:7");
  CHECK(r.unpaired[1].side == 'B');
  CHECK(r.unpaired[1].shape == "[torch.Size([512])]");
  CHECK(r.unpaired[2].dtype == "torch.float32");
  // Failed: mm's second 64 and neg, both failed on B.
  REQUIRE(r.failed.size() == 2);
  CHECK(r.failed[0].op == "mm");
  CHECK(r.failed[0].occurrence == 1);
  CHECK(r.failed[0].side == 'B');
  CHECK(r.failed[1].op == "neg");
  CHECK(r.total.failed == 2);
  CHECK(r.total.unpaired == 3);
  CHECK(r.rounds_a == 1);
}

TEST_CASE("zl::results::compare::compare: a range with fallback rows is marked")
{
  const std::string marker = "ZL_TIMER op=abs timer=graph node=benchmark/test_abs.py::test_abs\n"
                             "BENCHMARK_DIRECT_NO_CUDAGRAPH op=abs dtype=torch.float16 shape=\"" +
                             s128 + "\" reason=refused\n";
  const auto a = one(table("abs", "torch.float16", {{s64, 1, 1}, {s128, 1, 1}}));
  const auto b = one(marker + table("abs", "torch.float16", {{s64, 1, 1}, {s128, 1, 1.1}}));
  const auto r = compare(a, b, {});
  REQUIRE(r.pairings.size() == 2);
  CHECK_FALSE(r.pairings[0].fallback);
  CHECK(r.pairings[1].fallback);
  CHECK(r.ops[0].fallback_pairs == 1);
  CHECK(r.total.fallback_pairs == 1);
}

TEST_CASE("zl::results::compare::compare_caliber")
{
  const std::string log = table("abs", "torch.float16", {{s64, 1, 1}});
  CHECK(compare_caliber(one(log), one(log)).empty());
  auto diffs = compare_caliber(one(log), one(log, {"cuda", "core", "direct", "kernel", "isolated"}));
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0].field == "timer");
  CHECK(diffs[0].a == "graph");
  CHECK(diffs[0].b == "direct");
  CHECK(diffs[1].field == "tuner_cache");
  // A bare log knows only mode and level: the other fields are unknown, and unknown differs (issue 10.10).
  diffs = compare_caliber(one(log), one(log, {"", "core", "", "kernel", ""}));
  REQUIRE(diffs.size() == 3);
  CHECK(diffs[0].field == "backend");
  CHECK(diffs[0].a == "cuda");
  CHECK(diffs[0].b == "unknown");
  CHECK(diffs[1].field == "timer");
  CHECK(diffs[2].field == "tuner_cache");
  const auto bare = one(log, {"", "core", "", "kernel", ""});
  CHECK(compare_caliber(bare, bare).size() == 3); // unknown on both sides was never checked either
  CHECK(compare_caliber(one(log), one(log, {"", "comprehensive", "", "kernel", ""}))[1].field == "level");
  // A side that mixes calibers differs even from a side that has them all.
  auto mixed = one(log);
  mixed.push_back(run_of(log, {"cuda", "core", "direct", "kernel", "shared"}));
  diffs = compare_caliber(mixed, mixed);
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].a == "direct,graph");
}

TEST_CASE("zl::results::compare::compare_caliber: the device's settings, where both sides read them")
{
  const std::string log = table("abs", "torch.float16", {{s64, 1, 1}});
  auto a = one(log), b = one(log);
  a[0].info.device_state = "clocks_locked=no power_limit_w=700 ecc=on";
  CHECK(compare_caliber(a, b).empty()); // B read none: nothing to tell them apart by
  b[0].info.device_state = "clocks_locked=yes power_limit_w=700 ecc=on";
  const auto diffs = compare_caliber(a, b);
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].field == "device_state");
  CHECK(diffs[0].b == "clocks_locked=yes power_limit_w=700 ecc=on");
  b[0].info.device_state = a[0].info.device_state;
  CHECK(compare_caliber(a, b).empty());
}

TEST_CASE("zl::results::compare::compare_caliber: the arguments after --")
{
  const std::string log = table("abs", "torch.float16", {{s64, 1, 1}});
  auto with = [&](const std::string& extra_args) {
    auto runs = one(log);
    runs[0].info.extra_args = extra_args;
    return runs;
  };
  CHECK(compare_caliber(with("none"), with("none")).empty());
  CHECK(compare_caliber(with("--warmup 5"), with("--warmup 5")).empty());
  CHECK(compare_caliber(with("none"), with("")).empty()); // "": a run from before zl recorded them
  auto diffs = compare_caliber(with("none"), with("--warmup 5"));
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].field == "pytest_extra_args");
  CHECK(diffs[0].a == "none");
  CHECK(diffs[0].b == "--warmup 5");
  diffs = compare_caliber(with(""), with("--warmup 5")); // what one side passed, the other cannot deny
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].a == "unknown");
  CHECK(compare_caliber(with("--x=a,b"), with("--x=a,b")).empty()); // commas do not split the value
}

TEST_CASE("zl::results::compare::compare_caliber: the executor")
{
  const std::string log = table("abs", "torch.float16", {{s64, 1, 1}});
  auto by = [&](const std::string& executor) {
    auto runs = one(log);
    runs[0].info.executor = executor;
    return runs;
  };
  CHECK(compare_caliber(by("warm"), by("warm")).empty());
  CHECK(compare_caliber(one(log), by("process")).empty()); // a run that does not say was a fresh process
  auto diffs = compare_caliber(by("process"), by("warm"));
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].field == "executor");
  CHECK(diffs[0].a == "process");
  CHECK(diffs[0].b == "warm");
  auto mixed = by("warm");
  mixed.push_back(run_of(log, {"cuda", "core", "graph", "kernel", "shared"})); // executor: process
  CHECK(compare_caliber(mixed, mixed).size() == 1);
}

TEST_CASE("zl::results::compare::compare: rounds give U-test verdicts")
{
  const auto base = rounds({1.00, 1.01, 0.99, 1.02, 0.98});
  SUBCASE("slower")
  {
    const auto r = compare(base, rounds({1.20, 1.21, 1.19, 1.22, 1.18}), {});
    REQUIRE(r.pairings.size() == 1);
    const auto& p = r.pairings[0];
    CHECK(p.a_samples == 5);
    CHECK(p.b_samples == 5);
    CHECK(p.ratio == doctest::Approx(1.2));
    CHECK(p.test.exact);
    CHECK(p.test.p == doctest::Approx(2.0 / 252));
    CHECK(p.verdict == Verdict::slower);
    CHECK(r.ops[0].verdicts[static_cast<std::size_t>(Verdict::slower)] == 1);
    CHECK(r.tested);
    CHECK(r.rounds_a == 5);
    CHECK(r.min_p == doctest::Approx(2.0 / 252));
  }
  SUBCASE("faster")
  {
    CHECK(compare(base, rounds({0.80, 0.81, 0.79, 0.82, 0.78}), {}).pairings[0].verdict == Verdict::faster);
  }
  SUBCASE("same: interleaved and close")
  {
    CHECK(compare(base, rounds({1.005, 0.995, 1.015, 0.985, 1.0}), {}).pairings[0].verdict == Verdict::same);
  }
  SUBCASE("ambiguous: apart, but the rounds cannot tell")
  {
    const auto r = compare(rounds({1.0, 1.2, 1.4, 1.6, 1.8}), rounds({1.1, 1.3, 1.5, 1.7, 1.9}), {});
    CHECK(r.pairings[0].ratio == doctest::Approx(1.5 / 1.4));
    CHECK(r.pairings[0].verdict == Verdict::ambiguous);
  }
  SUBCASE("too few rounds to ever be significant")
  {
    const auto r = compare(rounds({1.0, 1.01}), rounds({2.0, 2.01}), {});
    CHECK(r.pairings[0].verdict == Verdict::ambiguous);
    CHECK(r.min_p == doctest::Approx(1.0 / 3));
  }
  SUBCASE("a failed round is counted, the others still compare")
  {
    auto b = rounds({1.20, 1.21, 1.19, 1.22});
    b.push_back(run_of(table("abs", "torch.float16", {{s64, 1.0, 0}})));
    const auto r = compare(base, b, {});
    REQUIRE(r.pairings.size() == 1);
    CHECK(r.pairings[0].b_samples == 4);
    CHECK(r.pairings[0].b_failed == 1);
    CHECK(r.rounds_b == 5);
  }
}

TEST_CASE("zl::results::compare::compare: regressions for --fail-on-regression")
{
  AbOptions o;
  o.fail_on_regression = 0.05;
  const auto base = rounds({1.00, 1.01, 0.99, 1.02, 0.98});
  CHECK(compare(base, rounds({1.20, 1.21, 1.19, 1.22, 1.18}), o).regressions.size() == 1);
  // 4% slower and significant: under the 5% bar.
  CHECK(compare(base, rounds({1.04, 1.05, 1.03, 1.06, 1.045}), o).regressions.empty());
  // Apart but not significant (ambiguous): not a regression.
  CHECK(compare(rounds({1.0, 1.2, 1.4, 1.6, 1.8}), rounds({1.1, 1.3, 1.5, 1.7, 2.0}), o).regressions.empty());
  // One round a side: the ratio alone decides.
  CHECK(compare(rounds({1.0}), rounds({1.06}), o).regressions.size() == 1);
  CHECK(compare(rounds({1.0}), rounds({1.04}), o).regressions.empty());
}

TEST_CASE("zl::results::compare::compare: a record log pairs with a text table")
{
  TextStore store;
  std::vector<Diagnostic> diags;
  const auto entries = parse_record_log(
      R"([INFO] {"op_name": "sum_dim_out", "dtype": "torch.float16", "mode": "kernel", "level": "core", "result": [)"
      R"({"shape_detail": [[[64, 64], 1], {"out": [64]}], "latency_base": 0.002, "latency": 0.001, "error_msg": null}]})",
      "record.log", diags);
  std::vector<Run> a(1);
  a[0].rows = record_rows(entries, a[0].text);
  const auto b = one(table("sum_dim_out", "torch.float16",
                           {{"([torch.Size([64, 64]), 1], {'out': torch.Size([64])})", 0.002, 0.002}}));
  const auto r = compare(a, b, {});
  REQUIRE(r.pairings.size() == 1);
  CHECK(r.pairings[0].ratio == doctest::Approx(2.0));
  CHECK(r.unpaired.empty());
}

TEST_CASE("zl::results::compare::compare: a large comparison is split across threads and keeps A's order")
{
  // More groups than one part takes (50 000): on a machine of several cores, several threads.
  constexpr int k_rows = 110000;
  std::vector<zl::test::TableRow> rows_a, rows_b;
  for (int i = 0; i < k_rows; ++i) {
    const auto shape = fmt::format("[torch.Size([{}])]", i);
    rows_a.push_back({shape, 1.0, 0.5});
    rows_b.push_back({shape, 1.0, i == 70000 ? 0 : 0.55}); // one failed on B
  }
  rows_a.push_back({"[torch.Size([-1])]", 1.0, 0.5}); // one only in A
  const auto a = one(table("big", "torch.float16", rows_a));
  const auto b = one(table("big", "torch.float16", rows_b));
  const auto r = compare(a, b, {});
  REQUIRE(r.pairings.size() == k_rows - 1);
  CHECK(r.pairings[0].shape() == "[torch.Size([0])]");
  CHECK(r.pairings[69999].shape() == "[torch.Size([69999])]");
  CHECK(r.pairings[70000].shape() == "[torch.Size([70001])]");
  CHECK(r.pairings.back().shape() == fmt::format("[torch.Size([{}])]", k_rows - 1));
  CHECK(r.total.geomean == doctest::Approx(1.1));
  REQUIRE(r.failed.size() == 1);
  CHECK(r.failed[0].shape == "[torch.Size([70000])]");
  REQUIRE(r.unpaired.size() == 1);
  CHECK(r.unpaired[0].side == 'A');
}
