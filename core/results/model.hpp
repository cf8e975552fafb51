// What the parsers produce and the store keeps: rows of FlagGems' tables, marker lines, runs.
//
// A campaign can hold a million rows, so a row does not own its strings: op, dtype, Size Detail
// and the rest are views into compact copies its Run keeps (one copy of a table's op for all its
// rows), and the Run owns them for as long as its rows live.
#pragma once

#include "results/op_state.hpp"
#include "results/samples.hpp"
#include "util/memory.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace zl::results {

// A cell FlagGems printed as N/A, or a value the source does not have.
constexpr double k_na = std::numeric_limits<double>::quiet_NaN();
inline bool has_value(double v)
{
  return !std::isnan(v);
}

// Where a row came from.
enum class RowSource : std::uint8_t {
  table,        // a row of a text table (run.log, pytest's output)
  record,       // an item of the record log, where no table of the run shows it
  failure_line, // FlagGems' red "FAILED: Operator=… dtype=… err=<<<…>>>" line
  test_failure, // pytest's "FAILED node - reason" for a test that left no other trace
};
const char* to_string(RowSource s);

// What the rows of one table share: its operator and dtype, the timer that measured them (and,
// for a failure, its message). Rows point at one copy: a million rows are 40 MB less to write.
struct RowLabels
{
  std::string_view op;    // the table's "Operator:" name
  std::string_view dtype; // as the header prints it: torch.float16; empty when unknown
  std::string_view timer; // the timer that produced the rows: graph, direct, profiler, …; empty when unknown
  std::string_view error; // why the row failed, when the source says
};

struct Row
{
  const RowLabels* labels = &k_no_labels; // never null
  std::string_view shape;                 // Size Detail, verbatim (record rows: the JSON of shape_detail)
  double torch_ms = k_na;
  double gems_ms = k_na;
  double speedup = k_na;
  double tflops = k_na;
  double torch_gbps = k_na;
  double gems_gbps = k_na;
  std::uint32_t line = 0;       // 1-based line in its file (record rows: in the record log)
  std::uint32_t occurrence = 0; // earlier rows of the same run with the same op, dtype and shape
  bool success = false;         // SUCCESS in the table (error_msg null in the record log)
  bool fallback = false;        // a BENCHMARK_DIRECT_NO_CUDAGRAPH matched it: timed directly
  bool throttled = false;       // a telemetry reading taken while it was timed says the device was slowed
  RowSource source = RowSource::table;
  // Its samples in its Run's `samples`, torch's and FlagGems' (k_no_samples: none kept).
  std::int32_t torch_samples = k_no_samples, gems_samples = k_no_samples;

  static constexpr std::int32_t k_no_samples = -1;

  static const RowLabels k_no_labels;

  std::string_view op() const { return labels->op; }
  std::string_view dtype() const { return labels->dtype; }
  std::string_view timer() const { return labels->timer; }
  std::string_view error() const { return labels->error; }
  // Succeeded with a latency that can be compared.
  bool measured() const { return success && gems_ms > 0 && std::isfinite(gems_ms); }
};

// A run's rows; from its reader's arena when it has one.
using Rows = std::vector<Row, util::ArenaAllocator<Row>>;

// One `NAME key=value …` line.
struct Marker
{
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;
  std::uint32_t line = 0;
  std::int64_t row = -1; // index of the row it concerns in its run, or -1
  std::string op;        // the op it concerns: its own op=, else the test's (ZL_TIMER op=)

  // The value of key, or "" when absent.
  const std::string& get(std::string_view key) const;
  bool has(std::string_view key) const;
};

// A malformed line: reported as FILE:LINE: reason and skipped.
struct Diagnostic
{
  std::string file;
  std::uint32_t line = 0;
  std::string reason;
};

// Owns the text that rows view. Moving a TextStore keeps every view valid.
class TextStore
{
public:
  // Takes its blocks from arena from now on (which must outlive the store), or from the heap.
  void use(util::Arena* arena) { m_arena = arena; }
  util::Arena* arena() const { return m_arena; }
  // Keeps text (a whole file) and returns a view of it.
  std::string_view adopt(std::string text);
  // Copies s into storage that never moves.
  std::string_view copy(std::string_view s);
  // copy, once: the same text again gives the same view (the op and dtype names, timers that
  // every table of a long log repeats cost their bytes once).
  std::string_view intern(std::string_view s);
  // Keeps labels (whose strings must already be in this store) where they never move.
  const RowLabels* keep(const RowLabels& labels);

private:
  std::vector<std::unique_ptr<std::string>> m_texts;
  std::vector<std::unique_ptr<char[]>> m_blocks;
  std::unordered_set<std::string_view> m_interned;
  util::Arena* m_arena = nullptr;
  char* m_block = nullptr;
  static constexpr std::size_t k_block = std::size_t{64} * 1024;
  char* reserve(std::size_t size, std::size_t align);

  std::size_t m_used = 0;
};

// What a run's identity says about how it measured. Empty: not known.
struct Caliber
{
  std::string backend, level, timer, mode, tuner_cache;
};

struct RunInfo
{
  std::string path;     // the run folder or the log file, absolute
  std::string kind;     // "run" (a run folder), "log" (a text log), "record" (a record log)
  std::string log_file; // the text log read, if any
  std::string record_file;
  std::string samples_file;   // samples.bin, when the run kept its samples
  std::string telemetry_file; // telemetry.jsonl, when zl read the device's state
  std::size_t throttled_rows = 0;
  std::string throttle_cause; // the first throttled row's reason ("throttle reason power (SwPowerCap)")
  // Rows with no samples to place in time in a run whose device was slowed while it ran: whether
  // they were timed throttled is unknown (mark_throttled).
  std::size_t unplaced_rows = 0;
  std::string unplaced_cause; // the run's first slowed reading's reason
  std::string op;             // node.op of the identity, else the ops of the tables
  Caliber caliber;
  // Part of the caliber too: the pytest arguments given after `--` (the identity's
  // pytest_extra_args, ZL_RUN's extra_args), "none" or joined by spaces; "" when the run does not say.
  std::string extra_args;
  // Part of the caliber too: who ran pytest (the identity's executor.name: process, warm, …);
  // "process" when the run does not say (runs from before the field, logs: all were).
  std::string executor = "process";
  // Part of the caliber too: the device's settings its telemetry read (run::Identity::device_state);
  // "" when the run read none.
  std::string device_state;
  // The identity's status: an op state's name (ok, failed, …) or one only a run has (running,
  // no_tests, usage_error, error); parse_op_state tells which.
  std::string status;
  std::optional<double> duration_s;
  std::string device_uuid, device_name, started_at, zl_version;
  std::string driver;                     // the device's driver, as the run's telemetry read it; "" where none
  std::string identity_json;              // run_identity.json as read; empty for logs
  std::optional<OpState> campaign_status; // its op's in its campaign's ops_status.csv; none: none says
};

// An op of a campaign as its ops_status.csv tells it (ok, timeout, crashed, pending, …).
struct OpOutcome
{
  std::string campaign; // the campaign folder
  std::string op;
  OpState status = OpState::pending;
};

struct Run
{
  std::shared_ptr<util::Arena> arena; // where rows and text live, when not on the heap (first: dies last)
  RunInfo info;
  Rows rows;
  std::vector<Marker> markers;
  std::vector<Diagnostic> diagnostics;
  std::vector<Diagnostic> warnings; // files not read (outside the run folder): not malformed lines
  // Record-log entries another run wrote into this run's record log (merge_record): named, never
  // counted.
  std::vector<Diagnostic> foreign;
  std::vector<SampleSet> samples; // what rows' torch_samples and gems_samples index
  TextStore text;

  // The samples of one side of r (a row of this run), or null.
  const SampleSet* samples_of(const Row& r, bool gems = true) const
  {
    const auto i = gems ? r.gems_samples : r.torch_samples;
    return i < 0 || static_cast<std::size_t>(i) >= samples.size() ? nullptr : &samples[static_cast<std::size_t>(i)];
  }
};

} // namespace zl::results
