// zl report: one self-contained HTML page of a campaign, an A/B, or a store's history.
#include "output.hpp"
#include "results_input.hpp"

#include "report/data.hpp"
#include "report/report.hpp"
#include "results/compare/ab.hpp"
#include "results/store/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/signals.hpp"

#include <boost/filesystem/operations.hpp>
#include <fmt/format.h>

#include <csignal>
#include <iostream>
#include <sys/stat.h>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl report PATH... [-o report.html] [--db FILE]\n"
    "       zl report --ab A B [--force] [--alpha P] [--threshold PCT] [--process-noise PCT] [-o …] [--db FILE]\n"
    "       zl report --db FILE --history N [-o …]";

constexpr const char* k_notes =
    R"(zl report writes one HTML file that needs nothing else: the data is embedded in it as JSON,
and the charting library (Chart.js 3, from Debian's libjs-chart.js) and the page's script are
inlined, so it opens from disk or as a CI artifact with no server and no network. The numbers
are zl summary's (the same code computes them): the page draws pictures of what `zl summary`
and `zl summary --ab` print.

PATH is what zl summary reads: a run folder, a campaign folder (zl batch's output) or a
FlagGems log. The campaign view shows, for each caliber, the caliber itself from the runs'
run_identity.json (backend and its version, devices with names and UUIDs, timer, level, mode,
tuner cache, executor, pytest's extra arguments, the versions the runs recorded, FlagGems'
commit, zl's version; a field on which the runs disagree shows every value, in colour); per
dtype the geometric-mean speedup of FlagGems over torch of each op as sorted bars from 1 (blue:
FlagGems faster, vermillion: slower); the failures (FAILED rows, failure lines), the rows timed
directly after graph capture was refused (BENCHMARK_DIRECT_NO_CUDAGRAPH) and the markers
(BENCHMARK_CAPTURE_POISONED, AUTOTUNE_REPLAY_FALLBACK, …), each with the row it concerns and
FILE:LINE, a failure's message whole (up to 64 KiB), wrapped as printed; where the runs kept
their samples (samples.bin), the rows whose samples warn (noisy, outliers, short, few) with
their side, noise (IQR over the median) and count, and how many rows stopped sampling at a cap
(the most samples or the time limit) before the median's interval converged; where rows
reached a share of the device's spec peak (zl summary's %BW and %TFLOPS), the ops ranked by
headroom, furthest from the peak first; where the runs
read the device's state (telemetry.jsonl), its SM clock and temperature over the campaign on
one time axis, the readings that say it was throttled in red, and the rows timed then; per op its
latency against size as points, not lines (Size Details have no order: they are ordered by
element count, the product of the first list of integers in each, those without one last; the
median over rounds; FlagGems filled, torch hollow, a colour per dtype), beside each point the
box of its samples (min, quartiles, median, max of the round that kept the most), and a
tooltip with the shape, its element count, the sample count, median, noise and warnings; and
the ops that ops_status.csv does not call ok (crashed, timeout, …). Runs of different calibers
in one folder are never summarized together: the page says so and shows each caliber on its
own.

--ab A B: per op, FlagGems' latency B/A (geometric mean over the pairings, the bar from 1) and
its range (the pale bar), coloured by the verdicts of its pairings, as zl summary --ab computes
them: vermillion slower if any pairing is slower, else blue faster if any is faster, else
orange ambiguous if any is, else grey same; light grey when too few rounds to test. Below it,
per op, the B/A of each size, coloured by that pairing's own verdict; where both sides kept
samples, the bar ends at B against A of the samples' medians and its 95% interval is drawn
over it as a dark bar (a forest plot: an interval across 1 is no change), and the tooltip and
table give it as a percent with the interval, the verdict, p and the q-value; elsewhere B/A of
the medians over rounds and the U test's p, as before. The calibers of both sides are shown;
sides that differ are refused (exit 2) as by zl summary --ab, and --force draws them under a
banner that names the difference.

--db FILE --history N: per op, dtype and size, FlagGems' latency over the last N campaigns of
the store (a campaign: the folder of its run folders, a round-N level looked through; in order
of its first run's start), one line per size, on a logarithmic axis (sizes span decades). A
campaign of another caliber is drawn in a section of its own, never on the same line. A point
is a regression, drawn as a large vermillion triangle, when `zl summary --ab <the campaign
before> <this campaign>` calls its pairing slower (the first drawn is compared with the
campaign just before the window, when the store has one): the U test over the rounds of each,
so single-round campaigns mark none. A store without runs gives a page that says so.

Every chart has its numbers as a table below it (collapsed), the colours are the Okabe-Ito set
that colour-blind readers tell apart, and the page prints (all charts are drawn before
printing). The search box filters ops by substring. Charts below the fold are drawn when they
scroll into view, so that a campaign of 700 ops opens quickly. Labels longer than 512 bytes
(an op name of megabytes) are shortened, with their length, and the page says how many.

Exit codes: 0 written; 2 usage error, unreadable input, --ab sides whose calibers differ
without --force, or a file that could not be written (-o's folder missing or read-only, -o a
folder or a FIFO). The page is written to a temporary file renamed over -o: a reader, or a second
zl report writing the same file, never sees half a page, and Ctrl-C leaves none behind.

Examples:
  zl report runs/campaign-1 -o campaign-1.html
  zl report --ab base/ new/ -o ab.html
  zl report --db ~/zl-results.sqlite --history 30 -o nightly.html
)";

// -o must name a file, or nothing yet: the page goes to a temporary file renamed over it (a
// reader never sees half a page), which a folder refuses and a FIFO or device would not survive.
void check_output(const std::string& output)
{
  struct stat st = {};
  if (::stat(output.c_str(), &st) != 0) {
    return; // written anew; a missing folder is reported when the page is written
  }
  if (S_ISDIR(st.st_mode)) {
    throw Error(fmt::format("-o {} is a folder: give the file to write, such as -o {}/report.html", output, output));
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(fmt::format("-o {} is {}, not a regular file: zl report writes a file (through a temporary file "
                            "renamed over it, so that no reader sees half a page); give a file's path",
                            output, S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket"));
  }
}

// Writes the page; a SIGINT, SIGTERM or SIGHUP meanwhile is held until the rename is done (no
// temporary file is left behind, no half page) and then takes its course.
void write_page(const std::string& output, const std::string& page)
{
  int held = 0;
  {
    util::SignalForwarding signals;
    util::write_file_atomic(output, page);
    held = signals.signal();
  }
  if (held != 0) {
    ::raise(held);
  }
}

} // namespace

int cmd_report(Context&, const Args& args)
{
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
    ("path", po::value<std::vector<std::string>>(), "run folder, campaign folder or FlagGems log (positional)")
    ("output,o", po::value<std::string>()->default_value("report.html"), "the HTML file to write")
    ("ab", po::bool_switch(), "compare two sides: zl report --ab A B")
    ("db", po::value<std::string>(), "SQLite results store: PATHs are ingested into it; --history reads it")
    ("history", po::value<std::size_t>(), "the last N campaigns of each caliber in --db FILE")
    ("force", po::bool_switch(), "--ab: draw although the calibers differ (under a banner)")
    ("alpha", po::value<double>()->default_value(0.05, "0.05"), "--ab, --history: significance level of the U test")
    ("threshold", po::value<double>()->default_value(2.0), "--ab, --history: PCT within which a non-significant change is 'same'")
    ("process-noise", po::value<double>(), "--ab: PCT of between-process noise added to a side of one round (default: "
                                           "estimated over the pairings; docs/statistics.md)")
    ("keep-throttled", po::bool_switch(), "--ab: judge pairings timed on a throttled device too (default: no verdict)");
  // clang-format on
  const auto vm = parse_options("report", std::string(k_usage) + "\n\n" + k_notes, desc, args, {"path"});
  if (!vm) {
    return k_exit_ok;
  }
  const auto paths = vm->count("path") ? (*vm)["path"].as<std::vector<std::string>>() : std::vector<std::string>();
  const bool ab = (*vm)["ab"].as<bool>();
  const bool history = vm->count("history") > 0;
  const auto output = (*vm)["output"].as<std::string>();
  const auto options = ab_options(*vm);
  if (ab && paths.size() != 2) {
    throw Error("--ab compares two sides: zl report --ab A B (each a run folder, campaign folder or log)");
  }
  if (history && (!vm->count("db") || !paths.empty() || ab)) {
    throw Error("--history N reads a store and nothing else: zl report --db FILE --history N");
  }
  if (history && (*vm)["history"].as<std::size_t>() == 0) {
    throw Error("--history N needs N of 1 or more: the number of campaigns to draw");
  }
  if (paths.empty() && !vm->count("db")) {
    throw Error("zl report needs a PATH (a run folder, campaign folder or log), --ab A B, or --db FILE "
                "[--history N]; `zl report --help`");
  }
  if (!ab && (*vm)["force"].as<bool>()) {
    throw Error("--force goes with --ab A B");
  }
  if (history && !boost::filesystem::exists((*vm)["db"].as<std::string>())) {
    throw Error(fmt::format("no results store at {}: --history reads one that zl batch or zl summary --db wrote",
                            (*vm)["db"].as<std::string>()));
  }
  check_output(output);
  std::unique_ptr<results::store::Store> store;
  if (vm->count("db")) {
    store = std::make_unique<results::store::Store>((*vm)["db"].as<std::string>());
  }
  std::string page;
  if (history) {
    page = report::history_page(*store, (*vm)["db"].as<std::string>(), (*vm)["history"].as<std::size_t>());
  } else if (!ab) {
    const auto found = paths.empty() ? results::parse::Discovery() : find_runs("report", paths);
    const auto runs = paths.empty() ? store->load() : read_runs("report", found, store.get());
    page = report::campaign_page(runs, found.ops, paths, found.attempts);
  } else {
    const auto found_a = find_runs("report", {paths[0]});
    const auto found_b = find_runs("report", {paths[1]});
    results::parse::refuse_shared_runs(found_a, found_b);
    const auto a = read_runs("report", found_a, store.get());
    const auto b = read_runs("report", found_b, store.get());
    const bool force = (*vm)["force"].as<bool>();
    refuse_caliber_difference(a, b, force);
    const auto result = results::compare::compare(a, b, options);
    page = report::ab_page(result, report::AbSides{paths[0], paths[1], &a, &b, force, options});
  }
  write_page(output, page);
  std::cerr << fmt::format("zl report: wrote {} ({:.1f} MB)\n", output, static_cast<double>(page.size()) / 1e6);
  return k_exit_ok;
}

} // namespace zl::cli
