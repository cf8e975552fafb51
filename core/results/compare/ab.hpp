// One build against another: rows of side A and side B paired by operator, dtype and Size
// Detail (and, for a shape a run prints twice, by which time it was printed), and FlagGems'
// latency compared as the ratio B/A. The speedup column of a single run compares FlagGems
// with torch, which is a different question.
#pragma once

#include "results/compare/mann_whitney.hpp"
#include "results/compare/verdict.hpp"
#include "results/model.hpp"
#include "util/memory.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace zl::results::compare {

enum class Verdict { none, faster, slower, same, ambiguous };
const char* to_string(Verdict v);

struct AbOptions
{
  double alpha = 0.05;                      // significance level of the U test
  double threshold = 0.02;                  // |B/A - 1| up to this is "same" when the test finds no difference
  std::optional<double> fail_on_regression; // fraction: B/A above 1 + this is a regression
  // The between-process noise (relative) a one-round side adds; none: estimated (verdict.hpp).
  std::optional<double> process_noise;
  // Judge pairings of which a row was timed on a throttled device (Row::throttled); by default
  // they get no verdict: the device, not the build, may have made the difference.
  bool keep_throttled = false;
};

// The value of a caliber field a run does not say (a FlagGems log without zl's ZL_RUN header).
inline constexpr const char* k_unknown = "unknown";

// A caliber field on which the sides differ; a side that mixes values differs too, and a field
// that is unknown on either side (never checked) differs.
struct CaliberDiff
{
  std::string field, a, b; // values, comma-joined where a side holds several
};
std::vector<CaliberDiff> compare_caliber(const std::vector<Run>& a, const std::vector<Run>& b);

// Rows of both sides with the same key, of which each side has at least one measured sample.
struct Pairing
{
  const Row* row = nullptr;                   // the first row of the key on side A: its op, dtype, Size Detail
  std::uint32_t a_samples = 0, b_samples = 0; // measured rows (rounds) per side
  std::uint32_t a_failed = 0, b_failed = 0;   // rows of the key that failed
  double a_ms = 0, b_ms = 0;                  // median FlagGems latency per side
  double ratio = 0;                           // b_ms / a_ms
  double torch_ratio = k_na;                  // the same for torch's latency
  bool fallback = false;                      // a row of either side was timed directly
  bool throttled = false;                     // a row of either side was timed on a throttled device
  UTest test;
  // From the samples (docs/statistics.md): B's median over A's, less one, with its 95% interval;
  // p of no difference, and q, its Benjamini-Hochberg adjustment over the campaign's pairings.
  // NaN where a side kept no samples (then the verdict, if any, is the U test's over rounds).
  double diff = k_na, diff_lo = k_na, diff_hi = k_na, p = k_na, q = k_na;
  SideEstimate est_a, est_b;     // from the samples; not valid where a side kept none
  SideEstimate torch_a, torch_b; // torch's, the control (ab.cpp: control_moved)
  bool control_moved = false;    // torch's latency moved beyond the threshold between the sides
  double control_shift = 0;      // how far (ln units): added to the uncertainty of the verdict
  Verdict verdict = Verdict::none;

  std::string_view op() const { return row->op(); }
  std::string_view dtype() const { return row->dtype(); }
  std::string_view shape() const { return row->shape; }
  std::uint32_t occurrence() const { return row->occurrence; }
};

// A key that did not pair: on one side only, or failed on a side.
struct Unmatched
{
  std::string_view op, dtype, shape;
  std::uint32_t occurrence = 0;
  char side = 'A';        // the side it is on (unpaired), or the side that failed ('2': both)
  std::string_view error; // the failure's message, when there is one
  std::string where;      // FILE:LINE of a row of the key
};

struct OpComparison
{
  std::string op;
  std::size_t pairs = 0;
  double geomean = k_na, min = k_na, max = k_na, torch_geomean = k_na;
  std::size_t fallback_pairs = 0;
  std::array<std::size_t, 5> verdicts{}; // indexed by Verdict
  std::size_t unpaired = 0, failed = 0;
  double log_sum = 0, torch_log_sum = 0;
  std::size_t torch_pairs = 0;
};

struct AbResult
{
  std::vector<CaliberDiff> caliber_diffs;
  util::BigVector<Pairing> pairings; // in the order of side A's rows
  std::vector<OpComparison> ops;     // by op
  OpComparison total;
  std::vector<Unmatched> unpaired, failed;
  std::vector<std::size_t> regressions; // indices into pairings
  std::size_t runs_a = 0, runs_b = 0;
  std::size_t rounds_a = 0, rounds_b = 0; // most rows of one key on a side
  bool tested = false;                    // some pairing had rounds on both sides
  double min_p = 1;                       // the smallest p-value the fewest rounds tested can reach
  std::size_t sampled = 0;                // pairings judged from their samples
  double process_noise = 0;               // the relative between-process noise used (sqrt(tau^2))
  double process_noise_ops = 0;           // the part of it that moves whole ops (ProcessNoise::op2)
  bool process_noise_given = false;       // given (AbOptions), not estimated
  bool process_noise_known = false;       // given, or estimated from enough pairings
  std::size_t control_moved = 0;          // sampled pairings whose torch latency moved (ambiguous)
  std::size_t throttled = 0;              // pairings with a throttled row (no verdict unless kept)
};

// Pairs and compares. The runs must outlive the result (it views their rows).
AbResult compare(const std::vector<Run>& a, const std::vector<Run>& b, const AbOptions& options);

// The part of compare that judges the pairings with samples on both sides (verdict.hpp), and
// counts the throttled ones; the U test's verdicts, over rounds, stand elsewhere.
void judge_sampled(AbResult& out, const AbOptions& o);

// The part of compare that adds the pairings up, per op (in name order) and in total: their
// ratios and verdicts, the unpaired and failed keys, the regressions (--fail-on-regression), and
// what the U test over rounds could tell (tested, min_p).
void tally(AbResult& out, const AbOptions& options);

// A Size Detail in one spelling for both sources: the text table's repr
// "([torch.Size([64, 64]), 1], {'out': torch.Size([])})" and the record log's JSON
// "[[[64, 64], 1], {\"out\": []}]" both become [[[64,64],1],{"out":[]}].
std::string canonical_shape(std::string_view shape);

} // namespace zl::results::compare
