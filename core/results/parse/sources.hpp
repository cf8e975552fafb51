// What zl summary and the store read: run folders, campaign folders of run folders, and bare
// FlagGems logs (the text output, or the record log).
#pragma once

#include "results/model.hpp"
#include "results/parse/input.hpp"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::run {
struct Identity;
}

namespace zl::results::parse {

struct Source
{
  enum class Kind { run_folder, text_log, record_log };
  std::string path; // absolute
  Kind kind = Kind::run_folder;
  std::shared_ptr<const std::string> content = nullptr; // a pipe's or device's text, read once when sniffed
  std::optional<OpState> campaign_status = {};          // its op's in its campaign's ops_status.csv
  std::pair<std::uint64_t, std::uint64_t> id{};         // device and inode: the run, however it was reached
};

// What a set of PATHs stands for: each run once, and what was left out and why.
struct Discovery
{
  std::vector<Source> sources;
  std::vector<OpOutcome> ops;        // every op of the ops_status.csv files met
  std::vector<std::string> attempts; // <op>.attempt-N folders of a campaign: listed, not counted
  std::vector<std::string> notes;    // links not followed, runs reached twice
};

// The absolute, normal form zl keeps a path in (no trailing slash): the key of a run in the store.
std::string normal_path(const std::string& path);

// What a run's identity says of it: caliber, executor, device, driver, status, times, record log.
// The one mapping of run::Identity onto RunInfo (a run folder's, the scale bench's generated runs).
void fill_info(RunInfo& info, const run::Identity& id);

// The parts of the caliber (model.hpp) a stored run_identity.json gives beside the store's
// columns: extra_args ("" when it does not say), executor ("process" when it does not say),
// device_state and driver ("" when it read none). One parse of the identity for them all.
void caliber_from_identity(RunInfo& info, std::string_view identity_json);

// A folder holding run_identity.json or run.log.
bool is_run_folder(const std::string& dir);

// The sources the paths stand for: a run folder or a file itself; a campaign, the run folders
// below it (any depth, hidden folders skipped, sorted by path). A run reached twice (the same
// device and inode) counts once; inside a campaign symbolic links are not followed. The ops of
// a campaign's ops_status.csv (of a run folder named alone: its own op) come back in ops, and
// the campaign's earlier attempts (<op>.attempt-N) are listed, not counted. Throws Error (exit 2) when a path does not
// exist or holds no run folder.
Discovery discover_all(const std::vector<std::string>& paths);

// Throws Error (exit 2) naming the runs that are on both sides of an A/B (the same device and
// inode): a comparison of runs with themselves.
void refuse_shared_runs(const Discovery& a, const Discovery& b);

// The ops of each side's campaigns that are not ok: ('A', op), then ('B', op).
std::vector<std::pair<char, OpOutcome>> unfinished_ops(const Discovery& a, const Discovery& b);

// discover_all for one path, its sources alone.
std::vector<Source> discover(const std::string& path);

// Reads one source: run_identity.json, run.log, the record log (files whose real path is
// outside the run folder are left out, with a warning). Bad lines are reported in
// run.diagnostics and skipped; an unreadable file, or a log in which nothing is FlagGems', throws
// Error. With an arena the rows and their
// strings are allocated there (load_all gives each thread one), else on the heap.
Run load(const Source& source, std::shared_ptr<util::Arena> arena = nullptr);

// What a streaming read of a run hands its reader: rows and markers in the order read (a run read
// whole first: its rows, then its markers).
class RunSink
{
public:
  virtual ~RunSink() = default;
  // Its identity is read: run.info says what that says (the caliber the log adds comes later).
  virtual void begin(const Run& run) = 0;
  // One of its rows. Where run keeps no rows, r's Size Detail views the line being read (copy
  // what must outlive the call) and its occurrence is not numbered.
  virtual void row(const Run& run, const Row& r) = 0;
  virtual void marker(const Run& run, const Marker& m) = 0;
  // Every file of it is read: run.info, diagnostics and warnings are whole.
  virtual void end(const Run& run) = 0;
};

// Reads one source into run as load does, but hands its rows and markers to sink as they are
// read instead of keeping them: a log of any length costs no more than its longest line. A run
// whose record log or samples.bin must meet its rows first (merge_record, attach_samples), or a
// bare record log, is read whole, its rows kept in run and handed over after. Throws as load;
// run must not move until this returns.
void stream(const Source& source, Run& run, RunSink& sink);

// Loads sources on several threads (threads == 0: one per core, at most 8); the runs come
// back in the order of sources.
std::vector<Run> load_all(const std::vector<Source>& sources, unsigned threads = 0);

// Prints diagnostics as FILE:LINE: reason, one a line.
void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diags);

} // namespace zl::results::parse
