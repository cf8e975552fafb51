#include "results/compare/ab.hpp"

#include "util/flat_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <thread>

namespace zl::results::compare {

namespace {

constexpr std::uint32_t k_none = util::FlatIndex::k_none;

// The rows of one side grouped by key (op, dtype, Size Detail, occurrence): a group holds the
// same measurement from every round. Kept lean: a million rows go through here.
struct SideIndex
{
  const std::vector<Run>* runs = nullptr;
  std::vector<std::uint32_t> run_start; // index of each run's first row
  util::BigVector<const Row*> rows;
  std::vector<std::string_view> key_shape;          // only when keys are canonical; else the rows' own
  util::BigVector<std::uint32_t> next;              // next row of the same group
  util::BigVector<std::uint32_t> first, last, size; // per group
  util::BigVector<std::uint64_t> hash;              // per group
  std::vector<char> matched;                        // per group
  util::FlatIndex index;
  TextStore keys; // canonical Size Details, when there are any

  std::string_view shape(std::uint32_t i) const { return key_shape.empty() ? rows[i]->shape : key_shape[i]; }
};

bool same_key(const SideIndex& x, std::uint32_t i, const SideIndex& y, std::uint32_t j)
{
  const Row& a = *x.rows[i];
  const Row& b = *y.rows[j];
  return a.occurrence == b.occurrence && x.shape(i) == y.shape(j) && a.labels->op == b.labels->op &&
         a.labels->dtype == b.labels->dtype;
}

void build(SideIndex& s, const std::vector<Run>& runs, bool canonical)
{
  s.runs = &runs;
  std::size_t n = 0;
  for (const auto& run : runs) {
    s.run_start.push_back(static_cast<std::uint32_t>(n));
    n += run.rows.size();
  }
  s.rows.reserve(n);
  s.next.assign(n, k_none);
  for (auto* v : {&s.first, &s.last, &s.size}) {
    v->reserve(n);
  }
  s.hash.reserve(n);
  s.index = util::FlatIndex(n);
  // Rows of one table share their labels: hash op and dtype once per table.
  const RowLabels* labels = nullptr;
  std::uint64_t prefix = 0;
  for (const auto& run : runs) {
    for (const auto& r : run.rows) {
      const auto i = static_cast<std::uint32_t>(s.rows.size());
      s.rows.push_back(&r);
      if (canonical) {
        s.key_shape.push_back(s.keys.copy(canonical_shape(r.shape)));
      }
      if (r.labels != labels) {
        labels = r.labels;
        prefix = util::hash_mix(util::hash_text(labels->op), util::hash_text(labels->dtype));
      }
      const auto h = util::hash_mix(util::hash_mix(prefix, util::hash_text(s.shape(i))), r.occurrence);
      auto& g = s.index.slot(h, [&](std::uint32_t gid) { return same_key(s, s.first[gid], s, i); });
      if (g == k_none) {
        g = static_cast<std::uint32_t>(s.first.size());
        s.first.push_back(i), s.last.push_back(i), s.size.push_back(1), s.hash.push_back(h);
      } else {
        s.next[s.last[g]] = i;
        s.last[g] = i;
        ++s.size[g];
      }
    }
  }
  s.matched.assign(s.first.size(), 0);
}

struct Samples
{
  std::vector<double> gems, torch;
  std::vector<const SampleSet*> sets, torch_sets; // each measured row's samples, where kept
  std::uint32_t failed = 0;
  bool fallback = false;
  bool throttled = false;
  std::string_view error;
};

const Run& run_of(const SideIndex& s, std::uint32_t i)
{
  const auto run = std::upper_bound(s.run_start.begin(), s.run_start.end(), i) - s.run_start.begin() - 1;
  return (*s.runs)[static_cast<std::size_t>(run)];
}

void collect(const SideIndex& s, std::uint32_t group, Samples& out)
{
  out.gems.clear(), out.torch.clear(), out.sets.clear(), out.torch_sets.clear();
  out.failed = 0;
  out.fallback = false;
  out.throttled = false;
  out.error = {};
  for (auto i = s.first[group]; i != k_none; i = s.next[i]) {
    const Row& r = *s.rows[i];
    out.fallback = out.fallback || r.fallback;
    out.throttled = out.throttled || r.throttled;
    if (!r.measured()) {
      ++out.failed;
      out.error = out.error.empty() ? r.error() : out.error;
      continue;
    }
    out.gems.push_back(r.gems_ms);
    const Run& run = run_of(s, i);
    out.sets.push_back(run.samples_of(r));
    out.torch_sets.push_back(run.samples_of(r, false));
    if (r.torch_ms > 0 && std::isfinite(r.torch_ms)) {
      out.torch.push_back(r.torch_ms);
    }
  }
}

std::string where(const SideIndex& s, std::uint32_t i)
{
  const Row& r = *s.rows[i];
  const auto& info = run_of(s, i).info;
  const auto& file = r.source == RowSource::record ? info.record_file : info.log_file;
  return fmt::format("{}:{}", file.empty() ? info.path : file, r.line);
}

Unmatched unmatched(const SideIndex& s, std::uint32_t group, char side, std::string_view error)
{
  const Row& r = *s.rows[s.first[group]];
  return {r.op(), r.dtype(), r.shape, r.occurrence, side, error, where(s, s.first[group])};
}

Verdict verdict_of(const Pairing& p, const AbOptions& o)
{
  if (p.a_samples < 2 || p.b_samples < 2) {
    return Verdict::none;
  }
  if (p.test.p < o.alpha) {
    return p.ratio < 1 ? Verdict::faster : p.ratio > 1 ? Verdict::slower : Verdict::same;
  }
  return std::fabs(p.ratio - 1) <= o.threshold ? Verdict::same : Verdict::ambiguous;
}

// Pairs one group of A with its group of B (b == k_none: none): into p when they pair (true),
// else into the result's unpaired or failed.
bool pair(AbResult& out, SideIndex& a, std::uint32_t ga, SideIndex& b, std::uint32_t gb, const AbOptions& o,
          Samples& sa, Samples& sb, Pairing& p)
{
  collect(a, ga, sa);
  if (gb == k_none) {
    (sa.gems.empty() ? out.failed : out.unpaired).push_back(unmatched(a, ga, 'A', sa.error));
    return false;
  }
  b.matched[gb] = 1;
  collect(b, gb, sb);
  if (sa.gems.empty() || sb.gems.empty()) {
    const char side = sa.gems.empty() && sb.gems.empty() ? '2' : sa.gems.empty() ? 'A' : 'B';
    out.failed.push_back(
        unmatched(side == 'B' ? b : a, side == 'B' ? gb : ga, side, side == 'B' ? sb.error : sa.error));
    return false;
  }
  p.row = a.rows[a.first[ga]];
  p.a_samples = static_cast<std::uint32_t>(sa.gems.size());
  p.b_samples = static_cast<std::uint32_t>(sb.gems.size());
  p.a_failed = sa.failed, p.b_failed = sb.failed;
  p.fallback = sa.fallback || sb.fallback;
  p.throttled = sa.throttled || sb.throttled;
  if (p.a_samples >= 2 && p.b_samples >= 2) {
    p.test = mann_whitney(sa.gems, sb.gems);
  }
  p.a_ms = median_in_place(sa.gems);
  p.b_ms = median_in_place(sb.gems);
  p.ratio = p.b_ms / p.a_ms;
  if (!sa.torch.empty() && !sb.torch.empty()) {
    p.torch_ratio = median_in_place(sb.torch) / median_in_place(sa.torch);
  }
  p.est_a = estimate_side(sa.sets), p.est_b = estimate_side(sb.sets);
  p.torch_a = estimate_side(sa.torch_sets), p.torch_b = estimate_side(sb.torch_sets);
  p.verdict = p.throttled && !o.keep_throttled ? Verdict::none : verdict_of(p, o);
  return true;
}

// Runs f(begin, end, part) over [0, n) in parts on several threads, each part big enough to be
// worth a thread; returns the number of parts.
template <typename F>
std::size_t in_parts(std::size_t n, std::size_t min_part, F&& f)
{
  const std::size_t cores = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  const std::size_t parts = std::clamp<std::size_t>(n / std::max<std::size_t>(min_part, 1), 1, cores);
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < parts; ++t) {
    threads.emplace_back([&, t] { f(n * t / parts, n * (t + 1) / parts, t); });
  }
  f(0, n / parts, 0);
  for (auto& t : threads) {
    t.join();
  }
  return parts;
}

} // namespace

AbResult compare(const std::vector<Run>& a, const std::vector<Run>& b, const AbOptions& options)
{
  AbResult out;
  out.caliber_diffs = compare_caliber(a, b);
  out.runs_a = a.size(), out.runs_b = b.size();
  // A record log spells Size Detail as JSON, a table as a repr: when both kinds are present
  // every key is put in one spelling (which costs a copy per row, so only then).
  bool record = false, table = false;
  for (const auto* side : {&a, &b}) {
    for (const auto& run : *side) {
      // A run's record-only rows come after all its others (merge_record appends them).
      record = record || (!run.rows.empty() && run.rows.back().source == RowSource::record);
      table = table || (!run.rows.empty() && run.rows.front().source != RowSource::record);
    }
  }
  SideIndex ia, ib;
  in_parts(2, 1, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (auto side = begin; side < end; ++side) { // both on one core, each on its own on two
      build(side ? ib : ia, side ? b : a, record && table);
    }
  });
  for (const auto n : ia.size) {
    out.rounds_a = std::max<std::size_t>(out.rounds_a, n);
  }
  for (const auto n : ib.size) {
    out.rounds_b = std::max<std::size_t>(out.rounds_b, n);
  }
  // A's groups in parts (B's group of a key is another part's never), each writing its pairings
  // into its own stretch of out.pairings (a group pairs once at most), then closed up in order:
  // a million pairings are never held twice.
  std::vector<AbResult> parts(8); // their unpaired and failed
  std::array<std::size_t, 8> starts{}, written{};
  out.pairings.resize(ia.first.size());
  const auto n_parts = in_parts(ia.first.size(), 50000, [&](std::size_t begin, std::size_t end, std::size_t t) {
    Samples sa, sb;
    starts[t] = begin;
    for (auto ga = static_cast<std::uint32_t>(begin); ga < end; ++ga) {
      const auto i = ia.first[ga];
      const auto gb = ib.index.find(ia.hash[ga], [&](std::uint32_t g) { return same_key(ib, ib.first[g], ia, i); });
      auto& slot = out.pairings[begin + written[t]];
      if (pair(parts[t], ia, ga, ib, gb, options, sa, sb, slot)) {
        ++written[t];
      }
    }
  });
  std::size_t paired = 0;
  for (std::size_t t = 0; t < n_parts; ++t) {
    const auto from = out.pairings.begin() + static_cast<std::ptrdiff_t>(starts[t]);
    std::move(from, from + static_cast<std::ptrdiff_t>(written[t]),
              out.pairings.begin() + static_cast<std::ptrdiff_t>(paired));
    paired += written[t];
    out.unpaired.insert(out.unpaired.end(), parts[t].unpaired.begin(), parts[t].unpaired.end());
    out.failed.insert(out.failed.end(), parts[t].failed.begin(), parts[t].failed.end());
  }
  out.pairings.resize(paired);
  parts.clear();
  judge_sampled(out, options);
  Samples sb;
  for (std::uint32_t gb = 0; gb < ib.first.size(); ++gb) {
    if (!ib.matched[gb]) {
      collect(ib, gb, sb);
      (sb.gems.empty() ? out.failed : out.unpaired).push_back(unmatched(ib, gb, 'B', sb.error));
    }
  }
  tally(out, options);
  return out;
}

} // namespace zl::results::compare
