#include "results/parse/sources.hpp"

#include "results/parse/input.hpp"
#include "results/parse/record_log.hpp"
#include "results/parse/samples_file.hpp"
#include "results/parse/table_parser.hpp"
#include "results/parse/telemetry_file.hpp"
#include "run/identity_record.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"
#include "util/workers.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <ostream>
#include <set>
#include <thread>

namespace zl::results::parse {

namespace fs = boost::filesystem;

namespace {

std::string read_whole(const std::string& path)
{
  return util::read_file(path); // a small document: regular files only, capped
}

// The read buffer of this thread; one that grew for a huge log is not kept.
std::vector<char>& thread_buffer()
{
  thread_local std::vector<char> buffer;
  if (buffer.capacity() > (64u << 20)) {
    std::vector<char>().swap(buffer);
  }
  return buffer;
}

// "none" for an empty pytest_extra_args, the arguments joined by spaces otherwise, "" when the
// identity predates the field (the arguments were not recorded: unknown).
std::string extra_args_of(const run::Identity& id)
{
  if (!id.pytest_extra_args) {
    return {};
  }
  const auto joined = util::join(*id.pytest_extra_args, " ");
  return joined.empty() ? "none" : joined;
}

void read_identity(Run& run, const std::string& file)
{
  run.info.identity_json = read_whole(file);
  run::Identity id;
  try {
    id = run::parse_identity(run.info.identity_json, file);
  } catch (const run::IdentityError& e) {
    run.diagnostics.push_back(
        {file, static_cast<std::uint32_t>(e.line()),
         fmt::format("not a run identity ({}): the run's caliber is taken from its log", e.reason())});
    run.info.identity_json.clear();
    return;
  }
  fill_info(run.info, id);
}

// Fills what the identity did not say from the log: ZL_RUN's header, then the tables' titles.
void fill_from_log(Run& run, const LogParse& log, const std::vector<RecordEntry>& entries)
{
  auto& c = run.info.caliber;
  if (log.run_header >= 0) {
    const auto& h = log.markers[static_cast<std::size_t>(log.run_header)];
    c.backend = c.backend.empty() ? h.get("backend") : c.backend;
    c.timer = c.timer.empty() ? h.get("timer") : c.timer;
    c.tuner_cache = c.tuner_cache.empty() ? h.get("tuner_cache") : c.tuner_cache;
    c.level = c.level.empty() ? h.get("level") : c.level;
    c.mode = c.mode.empty() ? h.get("mode") : c.mode;
    run.info.extra_args = run.info.extra_args.empty() ? h.get("extra_args") : run.info.extra_args;
  }
  std::set<std::string> modes, levels, ops;
  for (const auto& t : log.tables) {
    modes.emplace(t.mode), levels.emplace(t.level), ops.emplace(t.op);
  }
  for (const auto& e : entries) {
    modes.emplace(e.mode), levels.emplace(e.level), ops.emplace(e.op);
  }
  auto joined = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& v : s) {
      out += v.empty() ? "" : (out.empty() ? "" : ",") + v;
    }
    return out;
  };
  c.mode = c.mode.empty() ? joined(modes) : c.mode;
  c.level = c.level.empty() ? joined(levels) : c.level;
  run.info.op = run.info.op.empty() ? joined(ops) : run.info.op;
}

} // namespace

void fill_info(RunInfo& i, const run::Identity& id)
{
  i.caliber = {id.backend.name, id.level, id.timer.effective, id.mode, id.tuner_cache};
  i.extra_args = extra_args_of(id);
  i.executor = id.executor;
  i.device_state = id.device_state;
  i.driver = id.driver;
  i.op = id.op;
  i.status = id.status;
  i.duration_s = id.duration_s;
  i.device_uuid = id.device.uuid;
  i.device_name = id.device.name;
  i.started_at = id.started_at;
  i.zl_version = id.zl_version;
  i.record_file = id.record_log;
}

void caliber_from_identity(RunInfo& info, std::string_view identity_json)
{
  const auto id = run::try_parse_identity(identity_json);
  info.extra_args = id ? extra_args_of(*id) : std::string();
  info.executor = id ? id->executor : std::string("process");
  info.device_state = id ? id->device_state : std::string();
  info.driver = id ? id->driver : std::string();
}

namespace {

// The run's telemetry.jsonl marks the rows timed on a throttled device; a line it cannot read is
// a warning (an interrupted run may end mid-line), and rows stand unmarked where none can be read.
void read_telemetry(Run& run)
{
  std::vector<char> bytes;
  try {
    std::vector<std::string> problems;
    const auto readings =
        devices::parse_readings(read_input(run.info.telemetry_file, bytes, 0, true), run.info.telemetry_file, problems);
    for (const auto& p : problems) {
      run.warnings.push_back({run.info.telemetry_file, 0, p});
    }
    mark_throttled(run, readings);
  } catch (const Error& e) {
    run.warnings.push_back({run.info.telemetry_file, 0, e.what()});
  }
}

// The files of a run folder that lie inside it (a warning for each that does not: another run's
// rows, or anything else a link or a path in the identity points at, are not this run's), and
// its identity read.
void find_files(const Source& source, Run& run)
{
  run.info.kind = "run";
  const auto dir = fs::path(source.path);
  boost::system::error_code ec;
  const auto real_dir = fs::canonical(dir, ec).string() + "/";
  auto inside = [&](const fs::path& file, const std::string& what) {
    boost::system::error_code e;
    if (!fs::exists(file, e)) {
      return std::string();
    }
    const auto real = fs::canonical(file, e).string();
    if (!e && real.compare(0, real_dir.size(), real_dir) == 0) {
      return file.string();
    }
    run.warnings.push_back({what.empty() ? file.string() : (dir / run::k_identity_file).string(), 0,
                            fmt::format("{}resolves outside the run folder (to {}): not read", what, real)});
    return std::string();
  };
  if (const auto identity = inside(dir / run::k_identity_file, ""); !identity.empty()) {
    read_identity(run, identity);
  }
  run.info.log_file = inside(dir / "run.log", "");
  const fs::path named = run.info.record_file.empty() ? fs::path("record.log") : fs::path(run.info.record_file);
  run.info.record_file = inside(named.is_absolute() ? named : dir / named,
                                named == "record.log" ? "" : fmt::format("record_log {} ", named.string()));
  run.info.samples_file = inside(dir / "samples.bin", "");
  run.info.telemetry_file = inside(dir / "telemetry.jsonl", "");
}

// Hands a log's rows and markers to a run's sink as the parser reads them.
class Forward final : public RowSink
{
public:
  Forward(const Run& run, RunSink* sink) : m_run(run), m_sink(sink) {}
  void row(const Row& r) override { m_sink->row(m_run, r); }
  void marker(const Marker& m) override { m_sink->marker(m_run, m); }

private:
  const Run& m_run;
  RunSink* m_sink;
};

// The text log of source (a run folder's run.log, or the log itself), line by line.
LogParse read_log(const Source& source, Run& run, RowSink* sink)
{
  const bool folder = source.kind == Source::Kind::run_folder;
  if (!folder && source.content) { // a pipe's, read whole when it was sniffed
    LineReader in(*source.content);
    return parse_text_log(in, source.path, run.text, run.diagnostics, sink);
  }
  LineReader in(folder ? run.info.log_file : source.path, thread_buffer(), folder);
  return parse_text_log(in, run.info.log_file, run.text, run.diagnostics, sink);
}

// A run folder's record log put together with its tables (merge_record).
void merge_folder_record(Run& run, LogParse& log, std::vector<RecordEntry>& entries)
{
  if (!run.info.record_file.empty()) {
    entries = parse_record_log(read_input(run.info.record_file, thread_buffer(), 0, true), run.info.record_file,
                               run.diagnostics);
  }
  std::string timer; // ZL_RUN's, else the identity's; a copy: the marker may not outlive this
  if (log.run_header >= 0) {
    timer = log.markers[static_cast<std::size_t>(log.run_header)].get("timer");
  }
  const auto default_timer = run.text.copy(timer.empty() ? run.info.caliber.timer : timer);
  if (merge_record(log.rows, log.tables, entries, default_timer, run.text, run.info.record_file, run.diagnostics,
                   run.foreign)) {
    number_occurrences(log.rows);
  }
}

// What a bare log (text or record) holds; throws Error when nothing of it is FlagGems'.
void read_bare(const Source& source, Run& run, LogParse& log, std::vector<RecordEntry>& entries, RowSink* sink)
{
  if (source.kind == Source::Kind::text_log) {
    run.info.kind = "log";
    run.info.log_file = source.path;
    log = read_log(source, run, sink);
  } else {
    run.info.kind = "record";
    run.info.record_file = source.path;
    const auto text = source.content ? std::string_view(*source.content) : read_input(source.path, thread_buffer());
    entries = parse_record_log(text, source.path, run.diagnostics);
    log.rows = record_rows(entries, run.text);
  }
  // A file of which nothing is FlagGems' (empty, binary, another program's) is not 0 rows; a
  // malformed line of a table or a record log is FlagGems' (and reported).
  if (log.rows.empty() && log.rows_read == 0 && log.tables.empty() && log.markers_read == 0 && entries.empty() &&
      run.diagnostics.empty()) {
    throw Error(fmt::format("no FlagGems table or record log found in {}: give FlagGems' output (pytest -s), its "
                            "--record log file, or a run folder",
                            source.path));
  }
}

// The samples and the telemetry of a run folder, given to its rows.
void read_samples_and_telemetry(Run& run)
{
  if (!run.info.samples_file.empty()) {
    // Its own buffer: the rows view the thread's buffer no more (they were copied into the
    // run's store), but a record log read into it may still be viewed by entries.
    std::vector<char> bytes;
    try {
      attach_samples(run, parse_samples(read_input(run.info.samples_file, bytes, 0, true), run.info.samples_file,
                                        run.diagnostics));
    } catch (const Error& e) { // the rows stand without their samples
      run.warnings.push_back({run.info.samples_file, 0, e.what()});
    }
  }
  if (!run.info.telemetry_file.empty()) {
    read_telemetry(run);
  }
}

// Reads source into run: its rows kept, or with a sink handed over as they are read wherever
// nothing else of the run must meet them first (its record log, its samples).
void read_run(const Source& source, Run& run, RunSink* sink)
{
  run.text.use(run.arena.get());
  run.info.path = source.path;
  run.info.campaign_status = source.campaign_status;
  const bool folder = source.kind == Source::Kind::run_folder;
  if (folder) {
    find_files(source, run);
  }
  const bool streams = sink != nullptr && source.kind != Source::Kind::record_log && run.info.record_file.empty() &&
                       run.info.samples_file.empty();
  Forward forward(run, sink);
  if (streams) {
    sink->begin(run);
  }
  LogParse log;
  std::vector<RecordEntry> entries;
  if (!folder) {
    read_bare(source, run, log, entries, streams ? &forward : nullptr);
  } else {
    if (!run.info.log_file.empty()) {
      log = read_log(source, run, streams ? &forward : nullptr);
    }
    if (!streams) {
      merge_folder_record(run, log, entries);
    }
  }
  fill_from_log(run, log, entries);
  run.rows = std::move(log.rows);
  run.markers = std::move(log.markers);
  read_samples_and_telemetry(run);
  if (sink != nullptr && !streams) {
    sink->begin(run);
    for (const auto& r : run.rows) {
      sink->row(run, r);
    }
    for (const auto& m : run.markers) {
      sink->marker(run, m);
    }
  }
  if (sink != nullptr) {
    sink->end(run);
  }
}

} // namespace

Run load(const Source& source, std::shared_ptr<util::Arena> arena)
{
  Run run;
  run.arena = std::move(arena);
  read_run(source, run, nullptr);
  return run;
}

void stream(const Source& source, Run& run, RunSink& sink)
{
  read_run(source, run, &sink);
}

std::vector<Run> load_all(const std::vector<Source>& sources, unsigned threads)
{
  std::vector<Run> runs(sources.size());
  std::vector<std::exception_ptr> errors(sources.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    // One arena per thread: the runs it reads share it, and it lives while any of them does.
    const auto arena = std::make_shared<util::Arena>();
    for (std::size_t i; (i = next++) < sources.size();) {
      try {
        runs[i] = load(sources[i], arena);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  util::run_workers(sources.size(), threads, work, errors);
  return runs;
}

void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diags)
{
  for (const auto& d : diags) {
    out << (d.line > 0 ? fmt::format("{}:{}: {}\n", d.file, d.line, d.reason)
                       : fmt::format("{}: {}\n", d.file, d.reason));
  }
}

} // namespace zl::results::parse
