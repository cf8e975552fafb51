// zl summary --ab's output.
#include "results/text/format.hpp"

#include "results/parse/marker_names.hpp"
#include "util/json.hpp"

#include <fmt/format.h>

namespace zl::results::text {

using namespace compare; // the report renders what compare computes

namespace {

constexpr std::size_t k_listed = 50; // text and Markdown list this many; JSON lists all

std::string key_text(std::string_view op, std::string_view dtype, std::string_view shape, std::uint32_t occurrence)
{
  return fmt::format("{} {} {}{}", op, dtype.empty() ? "-" : dtype, shape.empty() ? "-" : shape,
                     occurrence ? fmt::format(" (#{})", occurrence + 1) : "");
}

Table op_table(const AbResult& r, Format f)
{
  const bool csv = f == Format::csv;
  Table t;
  t.header = csv ? std::vector<std::string>{"op",        "pairs",          "geomean_ratio",       "min_ratio",
                                            "max_ratio", "fallback_pairs", "torch_geomean_ratio", "faster",
                                            "slower",    "same",           "ambiguous",           "unpaired",
                                            "failed"}
                 : std::vector<std::string>{"OP", "PAIRS", "B/A", "MIN", "MAX", "TORCH B/A"};
  if (!csv && r.tested) {
    for (const char* v : {"FASTER", "SLOWER", "SAME", "AMBIGUOUS"}) {
      t.header.push_back(v);
    }
  }
  if (!csv) {
    t.header.push_back("UNPAIRED");
    t.header.push_back("FAILED");
  }
  t.right.assign(t.header.size(), true);
  t.right[0] = false;
  auto add = [&](const OpComparison& c) {
    // The range is marked when a fallback row is in it: it was timed under another regime.
    const std::string mark = c.fallback_pairs > 0 && !csv ? "*" : "";
    std::vector<std::string> row{c.op, std::to_string(c.pairs), fixed(c.geomean), fixed(c.min), fixed(c.max) + mark};
    if (csv) {
      row.push_back(std::to_string(c.fallback_pairs));
    }
    row.push_back(fixed(c.torch_geomean));
    if (csv || r.tested) {
      for (const auto v : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous}) {
        row.push_back(std::to_string(c.verdicts[static_cast<std::size_t>(v)]));
      }
    }
    row.push_back(std::to_string(c.unpaired));
    row.push_back(std::to_string(c.failed));
    t.rows.push_back(std::move(row));
  };
  for (const auto& c : r.ops) {
    add(c);
  }
  add(r.total);
  return t;
}

std::string json(const AbResult& r, const AbView& v)
{
  util::JsonWriter j;
  auto& w = j.w();
  auto number = [&](const char* key, double x) {
    j.key(key);
    has_value(x) ? w.Double(x) : w.Null();
  };
  w.StartObject();
  j.field("version", 2); // 2: unfinished (1 had no version field)
  j.field("a", v.a_path);
  j.field("b", v.b_path);
  j.field("a_caliber", v.a_caliber);
  j.field("b_caliber", v.b_caliber);
  j.field("runs_a", static_cast<unsigned long long>(r.runs_a));
  j.field("runs_b", static_cast<unsigned long long>(r.runs_b));
  j.field("rounds_a", static_cast<unsigned long long>(r.rounds_a));
  j.field("rounds_b", static_cast<unsigned long long>(r.rounds_b));
  j.field("forced", v.forced);
  j.field("alpha", v.options.alpha);
  j.field("threshold", v.options.threshold);
  j.field("sampled_pairings", static_cast<unsigned long long>(r.sampled));
  j.field("process_noise", r.process_noise);
  j.field("process_noise_given", r.process_noise_given);
  j.field("process_noise_ops", r.process_noise_ops);
  j.field("control_moved", static_cast<unsigned long long>(r.control_moved));
  j.field("process_noise_known", r.process_noise_known);
  j.field("throttled_pairings", static_cast<unsigned long long>(r.throttled));
  j.field("keep_throttled", v.options.keep_throttled);
  j.key("unfinished");
  w.StartArray();
  for (const auto& [side, o] : v.unfinished) {
    w.StartObject();
    j.field("side", std::string(1, side)), j.field("op", o.op), j.field("status", std::string(name(o.status)));
    w.EndObject();
  }
  w.EndArray();
  j.key("caliber_differences");
  w.StartArray();
  for (const auto& d : r.caliber_diffs) {
    w.StartObject();
    j.field("field", d.field), j.field("a", d.a), j.field("b", d.b);
    w.EndObject();
  }
  w.EndArray();
  j.key("ops");
  w.StartArray();
  auto op_json = [&](const OpComparison& op) {
    w.StartObject();
    j.field("op", op.op);
    j.field("pairs", static_cast<unsigned long long>(op.pairs));
    number("geomean_ratio", op.geomean), number("min_ratio", op.min), number("max_ratio", op.max);
    number("torch_geomean_ratio", op.torch_geomean);
    j.field("fallback_pairs", static_cast<unsigned long long>(op.fallback_pairs));
    for (const auto vd : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous}) {
      j.field(to_string(vd), static_cast<unsigned long long>(op.verdicts[static_cast<std::size_t>(vd)]));
    }
    j.field("unpaired", static_cast<unsigned long long>(op.unpaired));
    j.field("failed", static_cast<unsigned long long>(op.failed));
    w.EndObject();
  };
  for (const auto& op : r.ops) {
    op_json(op);
  }
  op_json(r.total);
  w.EndArray();
  j.key("pairings");
  w.StartArray();
  for (const auto& p : r.pairings) {
    w.StartObject();
    j.field("op", std::string(p.op())), j.field("dtype", std::string(p.dtype()));
    j.field("shape", std::string(p.shape()));
    j.field("occurrence", static_cast<unsigned long long>(p.occurrence()));
    j.field("a_ms", p.a_ms), j.field("b_ms", p.b_ms), j.field("ratio", p.ratio);
    number("torch_ratio", p.torch_ratio);
    j.field("a_samples", static_cast<unsigned long long>(p.a_samples));
    j.field("b_samples", static_cast<unsigned long long>(p.b_samples));
    j.field("a_failed", static_cast<unsigned long long>(p.a_failed));
    j.field("b_failed", static_cast<unsigned long long>(p.b_failed));
    j.field("fallback", p.fallback);
    j.field("throttled", p.throttled);
    j.field("verdict", std::string(to_string(p.verdict)));
    const bool sampled = has_value(p.diff);
    j.field("method", std::string(sampled ? "samples" : p.verdict == Verdict::none ? "none" : "u_test"));
    number("p_value", sampled ? p.p : p.verdict == Verdict::none ? k_na : p.test.p);
    number("q_value", p.q);
    number("diff", p.diff), number("diff_lo", p.diff_lo), number("diff_hi", p.diff_hi);
    j.field("control_moved", p.control_moved);
    w.EndObject();
  }
  w.EndArray();
  for (const auto& [name, list] : {std::pair{"unpaired", &r.unpaired}, std::pair{"failed", &r.failed}}) {
    j.key(name);
    w.StartArray();
    for (const auto& u : *list) {
      w.StartObject();
      j.field("op", std::string(u.op)), j.field("dtype", std::string(u.dtype)), j.field("shape", std::string(u.shape));
      j.field("occurrence", static_cast<unsigned long long>(u.occurrence));
      j.field("side", u.side == '2' ? std::string("both") : std::string(1, u.side));
      j.nullable("error", std::string(u.error));
      j.field("where", u.where);
      w.EndObject();
    }
    w.EndArray();
  }
  j.key("regressions");
  w.StartArray();
  for (const auto k : r.regressions) {
    w.Uint64(k);
  }
  w.EndArray();
  w.EndObject();
  return j.text();
}

std::string counted_pairings(std::size_t n)
{
  return fmt::format("{} pairing{}", n, n == 1 ? "" : "s");
}

// How the sample verdicts were reached, and the pairings that are not "same".
std::string sampled_notes(const AbResult& r, const AbView& v, const std::string& item, bool md)
{
  std::string out = fmt::format(
      "Verdicts from the samples of {} pairings (docs/statistics.md): B/A - 1 with a 95% interval of the ratio of "
      "medians (Price-Bonett per side; rounds, where there are several, as a per-round test),\nbetween-process "
      "noise {:.2f}% ({}) added to a side of one round, p-values adjusted by\nBenjamini-Hochberg over all "
      "pairings. same: the interval within +-{}%; faster, slower: it excludes 0\nand q < {}; ambiguous: too wide "
      "to tell.\n",
      r.sampled, r.process_noise * 100,
      r.process_noise_given
          ? std::string("given by --process-noise")
          : fmt::format("estimated over them; {:.2f}% of it moves whole ops", r.process_noise_ops * 100),
      v.options.threshold * 100, v.options.alpha);
  if (!r.process_noise_known) {
    out += fmt::format("Too few pairings of one round a side ({}, fewer than {}) to tell how far two processes "
                       "differ: their\nverdicts are ambiguous. Give --process-noise PCT (an A/A of this machine "
                       "says it) or several rounds a side.\n",
                       r.sampled, k_min_for_tau);
  }
  if (r.control_moved > 0) {
    out += fmt::format("{}: torch's own latency in the same row moved beyond +-{}% between the sides (the machine\n"
                       "or process was not in the same state); how far it moved is added to the interval (marked ~).\n",
                       counted_pairings(r.control_moved), v.options.threshold * 100);
  }
  std::vector<const Pairing*> called;
  for (const auto& p : r.pairings) {
    if (has_value(p.diff) && p.verdict != Verdict::same) {
      called.push_back(&p);
    }
  }
  if (called.empty()) {
    return out;
  }
  out += fmt::format("\n{}not same: {}\n", md ? "### " : "", called.size());
  for (std::size_t k = 0; k < called.size() && k < k_listed; ++k) {
    const auto& p = *called[k];
    out += fmt::format("{}{:<9}{} {:+.2f}% [{:+.2f}%, {:+.2f}%] q={:.3g}  {}\n", item, to_string(p.verdict),
                       p.control_moved ? "~" : " ", p.diff * 100, p.diff_lo * 100, p.diff_hi * 100, p.q,
                       key_text(p.op(), p.dtype(), p.shape(), p.occurrence()));
  }
  if (called.size() > k_listed) {
    out += fmt::format("{}… and {} more (--format json lists all)\n", item, called.size() - k_listed);
  }
  return out;
}

} // namespace

std::string format_ab(const AbResult& r, const AbView& v, Format f)
{
  if (f == Format::json) {
    return json(r, v);
  }
  if (f == Format::csv) {
    return render(op_table(r, f), f);
  }
  const bool md = f == Format::md;
  const std::string item = md ? "- " : "  ";
  std::string out =
      fmt::format("{}zl summary --ab: B/A is FlagGems' latency on B over A; below 1, B is faster\n", md ? "## " : "");
  auto counted = [](std::size_t n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  out += fmt::format("{}A: {} ({}, {}; {})\n", item, v.a_path, counted(r.runs_a, "run"), counted(r.rounds_a, "round"),
                     v.a_caliber);
  out += fmt::format("{}B: {} ({}, {}; {})\n", item, v.b_path, counted(r.runs_b, "run"), counted(r.rounds_b, "round"),
                     v.b_caliber);
  if (!v.unfinished.empty()) {
    std::vector<std::string> ops;
    for (const auto& [side, o] : v.unfinished) {
      ops.push_back(fmt::format("{}: {} ({})", side, o.op, name(o.status)));
    }
    out += fmt::format("{}did not finish ok: {} (from ops_status.csv: its rows, if any, are partial)\n", item,
                       fmt::join(ops, "; "));
  }
  if (!r.caliber_diffs.empty()) {
    out += fmt::format("\n{}CALIBER DIFFERS, compared anyway (--force):\n", md ? "**" : "");
    for (const auto& d : r.caliber_diffs) {
      out += fmt::format("{}{}: A={} B={}\n", item, d.field, d.a, d.b);
    }
    out += md ? "**\n" : "";
  }
  out += "\n" + render(op_table(r, f), f) + "\n";
  if (r.throttled > 0) {
    out += fmt::format("{}: a row was timed while the device was throttled (telemetry.jsonl); {}.\n",
                       counted_pairings(r.throttled),
                       v.options.keep_throttled ? "judged all the same (--keep-throttled)"
                                                : "no verdict (--keep-throttled judges them)");
  }
  if (r.total.fallback_pairs > 0) {
    out += fmt::format("{}* the range includes {} with rows timed directly after graph capture was refused "
                       "({}), a different regime\n",
                       md ? "\\" : "", counted(r.total.fallback_pairs, "pairing"),
                       parse::marker_names::k_benchmark_direct_no_cudagraph);
  }
  if (r.sampled > 0) {
    out += sampled_notes(r, v, item, md);
  }
  if (r.sampled < r.pairings.size() && r.tested && r.min_p < 1) {
    out += fmt::format(
        "Verdicts: a Mann-Whitney U test over the rounds of each pairing (alpha {}). faster, slower:\n"
        "significant; same: not significant and |B/A - 1| <= {}%; ambiguous: not significant, further apart.\n",
        v.options.alpha, v.options.threshold * 100);
    if (r.min_p >= v.options.alpha) {
      out += fmt::format("Too few rounds: with {} and {} the smallest p-value is {:.3f}, not below alpha, so no "
                         "pairing can be called faster or slower; give each side more rounds (9 or more, as Google "
                         "Benchmark advises).\n",
                         r.rounds_a, r.rounds_b, r.min_p);
    }
  } else if (r.sampled < r.pairings.size()) {
    out += fmt::format("{} without samples on both sides and one round a side: no verdicts for them (a U test "
                       "needs several rounds; runs of this zl keep samples.bin).\n",
                       counted(r.pairings.size() - r.sampled, "pairing"));
  }
  auto list = [&](const std::vector<Unmatched>& items, const std::string& title, bool failed) {
    if (items.empty()) {
      return;
    }
    std::size_t on_a = 0, on_b = 0;
    for (const auto& u : items) {
      on_a += u.side == 'A' ? 1 : 0;
      on_b += u.side == 'B' ? 1 : 0;
    }
    out += fmt::format("\n{}{}: {} ({} A: {}, {} B: {}{})\n", md ? "### " : "", title, items.size(),
                       failed ? "on" : "only in", on_a, failed ? "on" : "only in", on_b,
                       failed ? fmt::format(", on both: {}", items.size() - on_a - on_b) : "");
    for (std::size_t k = 0; k < items.size() && k < k_listed; ++k) {
      const auto& u = items[k];
      out += fmt::format("{}{} {}{}  ({})\n", item, u.side == '2' ? "A+B" : std::string(1, u.side),
                         key_text(u.op, u.dtype, u.shape, u.occurrence),
                         u.error.empty() ? "" : fmt::format(": {}", u.error.substr(0, 120)), u.where);
    }
    if (items.size() > k_listed) {
      out += fmt::format("{}… and {} more (--format json lists all)\n", item, items.size() - k_listed);
    }
  };
  list(r.unpaired, "unpaired", false);
  list(r.failed, "failed", true);
  if (v.options.fail_on_regression) {
    out +=
        fmt::format("\n{}regressions (B/A above {:.3f}{}): {}\n", md ? "### " : "", 1 + *v.options.fail_on_regression,
                    r.tested ? ", slower by the U test" : "", r.regressions.size());
    for (std::size_t k = 0; k < r.regressions.size() && k < k_listed; ++k) {
      const auto& p = r.pairings[r.regressions[k]];
      out += fmt::format("{}{}  B/A {:.3f}{}\n", item, key_text(p.op(), p.dtype(), p.shape(), p.occurrence()), p.ratio,
                         p.verdict == Verdict::none ? "" : fmt::format(" (p={:.4f})", p.test.p));
    }
  }
  return out;
}

} // namespace zl::results::text
