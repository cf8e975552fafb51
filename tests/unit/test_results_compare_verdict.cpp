#include "results/compare/verdict.hpp"

#include "results/compare/ab.hpp"
#include "results_helpers.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace zl::results;
using namespace zl::results::compare;

namespace {

SampleSet samples_around(double median, double spread, int n, std::mt19937& rng)
{
  std::normal_distribution<double> noise(0, spread);
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    ms.push_back(median * (1 + noise(rng)));
  }
  SampleSet s;
  s.stats = describe_samples(ms);
  s.ms.assign(ms.begin(), ms.end());
  return s;
}

// One run a side of `rows` rows (op abs, shapes s0, s1, …), each with samples around the
// latency of `at(i)` and that latency in the table.
Run side(int rows, const std::function<double(int)>& at, double spread, std::mt19937& rng)
{
  std::vector<zl::test::TableRow> table;
  std::vector<SampleSet> sets;
  for (int i = 0; i < rows; ++i) {
    sets.push_back(samples_around(at(i), spread, 200, rng));
    table.push_back({fmt::format("[torch.Size([{}])]", i + 1), 2.0, sets.back().stats.median});
  }
  auto run = zl::test::run_of(zl::test::table("abs", "torch.float16", table));
  run.samples = std::move(sets);
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    run.rows[i].gems_samples = static_cast<std::int32_t>(i);
  }
  return run;
}

} // namespace

TEST_CASE("compare: torch's latency in the same row is a control")
{
  std::mt19937 rng(5);
  // 30 rows; on B FlagGems is 6% slower everywhere, and in rows 0-9 the machine was 6% slower
  // too (torch, timed just before in the same process, moved as much).
  auto a = side(
      30, [](int) { return 1.0; }, 0.01, rng);
  auto b = side(
      30, [](int) { return 1.06; }, 0.01, rng);
  for (auto* run : {&a, &b}) {
    const bool slow_machine = run == &b;
    for (std::size_t i = 0; i < run->rows.size(); ++i) {
      run->samples.push_back(samples_around(slow_machine && i < 10 ? 1.06 : 1.0, 0.01, 200, rng));
      run->rows[i].torch_samples = static_cast<std::int32_t>(run->samples.size() - 1);
    }
  }
  std::vector<Run> ra, rb;
  ra.push_back(std::move(a)), rb.push_back(std::move(b));
  AbOptions o;
  o.process_noise = 0.002;
  const auto r = compare::compare(ra, rb, o);
  CHECK(r.control_moved == 10);
  for (std::size_t i = 0; i < r.pairings.size(); ++i) {
    const auto& p = r.pairings[i];
    CAPTURE(i);
    CHECK(p.control_moved == (i < 10));
    // Where the machine moved as much as FlagGems did, the difference is not called.
    CHECK(p.verdict == (i < 10 ? Verdict::ambiguous : Verdict::slower));
  }
}

TEST_CASE("estimate_side: one round's error, several rounds' spread")
{
  SampleSet a, b;
  a.stats.median = 1.0, a.stats.log_se = 0.01;
  b.stats.median = std::exp(0.1), b.stats.log_se = 0.01;
  const auto one = estimate_side({&a});
  CHECK(one.rounds == 1);
  CHECK(one.variance == doctest::Approx(1e-4));
  const auto two = estimate_side({&a, &b});
  CHECK(two.rounds == 2);
  CHECK(two.log_median == doctest::Approx(0.05));
  // The spread between the rounds (0.005 / 2) is above their own errors (1e-4 / 2).
  CHECK(two.variance == doctest::Approx(0.005 / 2));
  SampleSet none;
  none.stats.log_se = std::nan("");
  CHECK_FALSE(estimate_side({&none}).valid());
}

TEST_CASE("interval: the ratio of medians, widened by the between-process noise")
{
  SideEstimate a{0, 1e-4, 1}, b{std::log(1.03), 1e-4, 1};
  const auto ci = interval(a, b, 0);
  CHECK(ci.diff == doctest::Approx(0.03));
  CHECK(ci.lo == doctest::Approx(std::exp(std::log(1.03) - 1.959964 * std::sqrt(2e-4)) - 1).epsilon(1e-6));
  CHECK(ci.p < 0.05);
  const auto wide = interval(a, b, 0.01 * 0.01);
  CHECK(wide.lo < ci.lo);
  CHECK(wide.p > ci.p);
  // Rounds averaged: Student's t with Welch's degrees of freedom, wider than the normal.
  SideEstimate ra{0, 1e-4, 3}, rb{std::log(1.03), 1e-4, 3};
  CHECK(interval(ra, rb, 0).lo < ci.lo);
}

TEST_CASE("benjamini_hochberg")
{
  // R's p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") = 0.025 0.05 0.05 0.025 0.5
  const auto q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005, 0.5});
  CHECK(q[0] == doctest::Approx(0.025));
  CHECK(q[1] == doctest::Approx(0.05));
  CHECK(q[2] == doctest::Approx(0.05));
  CHECK(q[3] == doctest::Approx(0.025));
  CHECK(q[4] == doctest::Approx(0.5));
}

TEST_CASE("estimate_process_noise finds the spread between processes that the errors do not explain")
{
  std::mt19937 rng(7);
  std::normal_distribution<double> process(0, 0.01), within(0, 0.001), op_state(0, 0.03);
  std::vector<SideEstimate> a, b;
  std::vector<std::size_t> each_alone, by_op;
  for (std::size_t i = 0; i < 2000; ++i) {
    a.push_back({process(rng) + within(rng), 1e-6, 1});
    b.push_back({process(rng) + within(rng), 1e-6, 1});
    each_alone.push_back(i), by_op.push_back(i / 20);
  }
  // Each side has its own process offset: D's spread is 2 tau^2 beyond the errors, and tau^2
  // is added to each side.
  const auto rows = estimate_process_noise(a, b, each_alone);
  CHECK(std::sqrt(rows.side2()) == doctest::Approx(0.01).epsilon(0.1));
  CHECK(rows.op2 == 0);
  CHECK(estimate_process_noise({a.begin(), a.begin() + 5}, {b.begin(), b.begin() + 5}, each_alone).side2() == 0);
  // A process state that moves each op's 20 rows together (100 ops) is told apart from the rows'.
  for (std::size_t op = 0; op < 100; ++op) {
    const double shift = op_state(rng);
    for (std::size_t i = op * 20; i < op * 20 + 20; ++i) {
      b[i].log_median += shift;
    }
  }
  const auto blocks = estimate_process_noise(a, b, by_op);
  CHECK(std::sqrt(blocks.row2 / 2) == doctest::Approx(0.01).epsilon(0.15));
  CHECK(std::sqrt(blocks.op2) == doctest::Approx(0.03).epsilon(0.2));
}

TEST_CASE("compare: one run a side, verdicts from the samples")
{
  std::mt19937 rng(11);
  auto a = side(
      60, [](int) { return 1.0; }, 0.02, rng);
  // Rows 0-9 are 5% slower on B, 10-19 5% faster, the rest the same.
  auto b = side(
      60, [](int i) { return i < 10   ? 1.05
                             : i < 20 ? 0.95
                                      : 1.0; }, 0.02, rng);
  std::vector<Run> ra, rb;
  ra.push_back(std::move(a)), rb.push_back(std::move(b));
  const auto r = compare::compare(ra, rb, AbOptions{});
  REQUIRE(r.pairings.size() == 60);
  CHECK(r.sampled == 60);
  CHECK(r.tested);
  std::size_t slower = 0, faster = 0, same = 0;
  for (std::size_t i = 0; i < r.pairings.size(); ++i) {
    const auto& p = r.pairings[i];
    CHECK(p.diff_lo <= p.diff);
    CHECK(p.diff <= p.diff_hi);
    const auto expected = i < 10 ? Verdict::slower : i < 20 ? Verdict::faster : Verdict::same;
    slower += p.verdict == Verdict::slower && expected == Verdict::slower ? 1 : 0;
    faster += p.verdict == Verdict::faster && expected == Verdict::faster ? 1 : 0;
    same += p.verdict == Verdict::same && expected == Verdict::same ? 1 : 0;
    CHECK(p.verdict != (expected == Verdict::same ? Verdict::slower : Verdict::same));
  }
  CHECK(slower == 10);
  CHECK(faster == 10);
  CHECK(same >= 38);

  SUBCASE("a process state that moved one op's rows together is not called on its own")
  {
    // Four ops of 15 rows; on B each op's rows moved together by -4%, +1%, +4%, -1%: with one
    // campaign a side that cannot be told from a change, and the spread of the ops says so.
    std::vector<Run> oa, ob;
    const double shifts[] = {0.96, 1.01, 1.04, 0.99};
    for (int op = 0; op < 4; ++op) {
      oa.push_back(side(
          15, [](int) { return 1.0; }, 0.02, rng));
      ob.push_back(side(
          15, [&](int) { return shifts[op]; }, 0.02, rng));
    }
    for (int op = 0; op < 4; ++op) { // name the ops apart: abs0 … abs3
      for (auto* runs : {&oa, &ob}) {
        auto& run = (*runs)[static_cast<std::size_t>(op)];
        const std::string name = "abs" + std::to_string(op);
        const auto* labels = run.text.keep({run.text.copy(name), run.rows[0].dtype(), {}, {}});
        for (auto& row : run.rows) {
          row.labels = labels;
        }
      }
    }
    const auto ops = compare::compare(oa, ob, AbOptions{});
    CHECK(ops.process_noise_ops > 0.01);
    for (const auto& p : ops.pairings) {
      CHECK(p.verdict != Verdict::slower);
      CHECK(p.verdict != Verdict::faster);
    }
  }
  SUBCASE("too few pairings to tell the process noise: one round a side is ambiguous")
  {
    std::vector<Run> fa, fb;
    fa.push_back(side(
        10, [](int) { return 1.0; }, 0.02, rng));
    fb.push_back(side(
        10, [](int) { return 1.5; }, 0.02, rng));
    const auto few = compare::compare(fa, fb, AbOptions{});
    CHECK_FALSE(few.process_noise_known);
    for (const auto& p : few.pairings) {
      CHECK(p.verdict == Verdict::ambiguous);
    }
    AbOptions given;
    given.process_noise = 0.01; // an A/A of this machine said so
    for (const auto& p : compare::compare(fa, fb, given).pairings) {
      CHECK(p.verdict == Verdict::slower);
    }
  }
  SUBCASE("a given process noise widens every interval")
  {
    AbOptions o;
    o.process_noise = 0.05;
    const auto w = compare::compare(ra, rb, o);
    CHECK(w.process_noise_given);
    CHECK(w.process_noise == doctest::Approx(0.05));
    for (const auto& p : w.pairings) {
      CHECK(p.verdict == Verdict::ambiguous); // +-2% can no longer be told at 5% noise
    }
  }
}
