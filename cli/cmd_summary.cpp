// zl summary: a campaign at a glance, or one build against another (--ab).
#include "output.hpp"
#include "results_input.hpp"

#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/sources.hpp"
#include "results/store/store.hpp"
#include "results/text/format.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <iostream>
#include <set>

namespace zl::cli {

namespace {

constexpr const char* k_usage = "zl summary PATH... [--rows] [--format text|md|csv|json] [--db FILE]\n"
                                "       zl summary --ab A B [--force] [--fail-on-regression PCT] [--alpha P] "
                                "[--threshold PCT] [--process-noise PCT]\n"
                                "                  [--keep-throttled]\n"
                                "                  [--format …] [--db FILE]\n"
                                "       zl summary --db FILE";

constexpr const char* k_notes = R"(PATH is a run folder (run_identity.json, run.log, record.log), a campaign folder (run
folders below it, any depth: zl batch's output, or round-1/ round-2/ … of an A/B), or a FlagGems
log file: the text output (tables) or the record log (--record log), also from a pipe
(/dev/stdin, <(…): read whole, up to 1 GiB). A file in which nothing is FlagGems' (empty,
binary) is an error. Malformed lines are reported on stderr as FILE:LINE: reason and skipped.
Each run counts once, however often it is reached (PATHs that overlap, links): inside a
campaign symbolic links are not followed (a link given as PATH is). A run's files are read only
from inside its folder: a record_log or link that leads out of it is skipped with a warning.

A campaign of zl batch (ops_status.csv): the table gets a STATUS column (the op's status there),
and an op that did not finish ok (timeout, crashed, interrupted, failed, …) counts one failure
in a row of its own (DTYPE -): its rows, if any, are partial. Earlier attempts of an op that
--resume ran again (<op>.attempt-N) are listed, not counted.

Without --ab: per operator and dtype, the rows, the geometric mean of FlagGems' speedup over
torch with its range, the failures (FAILED rows, FlagGems' failure lines, failed tests), and the
rows timed directly after graph capture was refused (BENCHMARK_DIRECT_NO_CUDAGRAPH); then the
campaign total and the counts of markers (BENCHMARK_CAPTURE_POISONED, AUTOTUNE_REPLAY_FALLBACK, …).
Where a run read the device's state (telemetry.jsonl, zl run --telemetry), a row timed while a
reading said the device was throttled (a reason other than idle, or the SM clock under 90% of
its locked or maximum value) counts in THROTTLED; --ab gives such pairings no verdict unless
--keep-throttled.

--ab A B compares build B against build A. Rows pair by operator, dtype and Size Detail (and,
where a run prints one shape twice, by which time). Only rows that succeeded on both sides with a
positive latency count; unpaired and failed rows are counted and listed. Per op: pairs, the
geometric mean of FlagGems' latency B/A (below 1: B is faster) and its range, marked * when
either side has rows timed directly (a fallback).

Verdicts, from one campaign a side: where both sides kept their samples (samples.bin), each
pairing gets B/A - 1 with a 95% interval of the ratio of medians (Price-Bonett per side; several
rounds are averaged as a per-round test), plus the between-process noise (--process-noise, else
estimated over all pairings) for a side of one round, and a p-value adjusted over all pairings
by Benjamini-Hochberg: same (the interval within --threshold), faster or slower (the interval
excludes 0 and q < --alpha), ambiguous (too wide to tell). docs/statistics.md says why. Rows
without samples on a side fall back to a Mann-Whitney U test over rounds (several run folders a
side): faster or slower (p < --alpha), same (not significant and within --threshold), ambiguous
(not significant but further apart).

The caliber of the two sides (backend, level, timer, mode, tuner cache; from run_identity.json,
for a bare log from its table titles and zl's ZL_RUN header) must agree: otherwise zl names the
difference and exits 2; a field a side does not say (a FlagGems log without zl's header has no
backend, timer or tuner cache) is "unknown", never checked, and differs too. --force compares
anyway and prints the difference above the table. Where every run of both sides read the
device's settings (telemetry: a locked clock, the power limit, ECC, MIG), they must agree too
(device_state). The same runs on both sides are refused (exit
2). Ops that a side's campaign did not call ok are named above the table.

--format json: version 2 (groups' status, ops, attempts; --ab: unfinished).

The store: without --db nothing is written; the folders are read into memory. --db FILE ingests
every run into the SQLite store FILE (created, migrated, WAL; a run ingested again is replaced)
and summarizes from it; with no PATH it summarizes every run FILE holds (zl batch writes one as
it goes).

Exit codes: 0 done; 2 usage error, unreadable or unrecognisable input, calibers that differ
without --force, or the same runs on both sides of --ab;
6 --fail-on-regression tripped: a pairing slower by more than PCT percent (with rounds: and
slower by the U test), or nothing was paired at all.

Examples:
  zl summary runs/campaign-1
  zl summary --ab base/ new/ --format md
  zl summary --ab base/ new/ --fail-on-regression 5        CI gate: exit 6 on a >5% regression
  zl summary runs/run-a/run.log --format csv
  zl summary runs/campaign-1 --db results.sqlite         keep the rows in a store
)";

// zl summary PATH…: the summary (or every row) of the runs the paths stand for, or of the store.
void one_side(const std::vector<std::string>& paths, bool rows, results::text::Format format,
              results::store::Store* store)
{
  const auto found = paths.empty() ? results::parse::Discovery() : find_runs("summary", paths);
  if (!paths.empty() && store == nullptr && !rows) {
    // Folded as read: a huge log or campaign costs the groups' values, not its rows.
    results::compare::SummaryFold fold(found.ops);
    stream_runs("summary", found, fold);
    auto summary = fold.finish();
    summary.attempts = found.attempts;
    std::cout << results::text::format_summary(summary, paths, format);
    return;
  }
  // No PATH: the store's runs (cmd_summary asks for --db FILE then).
  const auto runs = !paths.empty()     ? read_runs("summary", found, store)
                    : store != nullptr ? store->load()
                                       : std::vector<results::Run>();
  if (rows) {
    std::cout << results::text::format_rows(runs, format);
    return;
  }
  auto summary = results::compare::summarize(runs, found.ops);
  summary.attempts = found.attempts;
  std::cout << results::text::format_summary(summary, paths, format);
}

} // namespace

int cmd_summary(Context&, const Args& args)
{
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
    ("path", po::value<std::vector<std::string>>(), "run folder, campaign folder or FlagGems log (positional)")
    ("ab", po::bool_switch(), "compare two sides: zl summary --ab A B")
    ("format", po::value<std::string>()->default_value("text"), "text, md (Markdown), csv or json")
    ("rows", po::bool_switch(), "every row, with its samples' n, median, noise (IQR / median), 95% interval of the "
                                "median, why sampling stopped and its warnings")
    ("db", po::value<std::string>(), "SQLite results store to ingest into and read from (default: none, in memory)")
    ("force", po::bool_switch(), "--ab: compare although the calibers differ (the difference is printed)")
    ("fail-on-regression", po::value<double>(), "--ab: exit 6 when a pairing is slower by more than PCT percent")
    ("alpha", po::value<double>()->default_value(0.05, "0.05"), "--ab: significance level of the U test")
    ("threshold", po::value<double>()->default_value(2.0), "--ab: PCT within which a non-significant change is 'same'")
    ("process-noise", po::value<double>(), "--ab: PCT of between-process noise added to a side of one round (default: "
                                           "estimated over the pairings; docs/statistics.md)")
    ("keep-throttled", po::bool_switch(), "--ab: judge pairings timed on a throttled device too (default: no verdict)");
  // clang-format on
  const auto vm = parse_options("summary", std::string(k_usage) + "\n\n" + k_notes, desc, args, {"path"});
  if (!vm) {
    return k_exit_ok;
  }
  const auto paths = vm->count("path") ? (*vm)["path"].as<std::vector<std::string>>() : std::vector<std::string>();
  const bool ab = (*vm)["ab"].as<bool>();
  const auto format = results::text::parse_format((*vm)["format"].as<std::string>());
  if (ab && paths.size() != 2) {
    throw Error("--ab compares two sides: zl summary --ab A B (each a run folder, campaign folder or log)");
  }
  if (paths.empty() && !vm->count("db")) {
    throw Error("zl summary needs a PATH (a run folder, campaign folder or log), or --db FILE; `zl summary --help`");
  }
  if (ab && (*vm)["rows"].as<bool>()) {
    throw Error("--rows lists the rows of one side: zl summary --rows PATH…, not with --ab");
  }
  for (const char* option : {"force", "fail-on-regression", "process-noise", "keep-throttled"}) {
    if (!ab && vm->count(option) && !(*vm)[option].defaulted()) {
      throw Error(fmt::format("--{} goes with --ab A B", option));
    }
  }
  std::unique_ptr<results::store::Store> store;
  if (vm->count("db")) {
    store = std::make_unique<results::store::Store>((*vm)["db"].as<std::string>());
  }
  if (!ab) {
    one_side(paths, (*vm)["rows"].as<bool>(), format, store.get());
    return k_exit_ok;
  }

  const auto options = ab_options(*vm);
  const auto found_a = find_runs("summary", {paths[0]});
  const auto found_b = find_runs("summary", {paths[1]});
  results::parse::refuse_shared_runs(found_a, found_b);
  const auto a = read_runs("summary", found_a, store.get());
  const auto b = read_runs("summary", found_b, store.get());
  const bool force = (*vm)["force"].as<bool>();
  refuse_caliber_difference(a, b, force);
  const auto result = results::compare::compare(a, b, options);
  results::text::AbView view{
      paths[0], paths[1], calibers(a), calibers(b), force, options, results::parse::unfinished_ops(found_a, found_b)};
  std::cout << results::text::format_ab(result, view, format);
  if (options.fail_on_regression && (!result.regressions.empty() || result.pairings.empty())) {
    std::cerr << (result.pairings.empty()
                      ? "zl summary: nothing paired: --fail-on-regression cannot pass on no comparison\n"
                      : fmt::format("zl summary: {} regression{} above {}% (listed above)\n", result.regressions.size(),
                                    result.regressions.size() == 1 ? "" : "s", *options.fail_on_regression * 100));
    return k_exit_regression;
  }
  return k_exit_ok;
}

} // namespace zl::cli
