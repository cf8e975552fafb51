#include "results/sources.hpp"

#include "results/record_log.hpp"
#include "results/table_parser.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <ostream>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace zl::results {

namespace fs = boost::filesystem;

namespace {

// The whole file, in buffer (reused from file to file, so that a campaign does not cost fresh
// memory for every log); the view is good until the next read into buffer.
std::string_view read_file(const std::string& path, std::vector<char>& buffer)
{
  const int fd = util::open_regular(path);
  struct stat st = {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    const int err = errno;
    if (fd >= 0) {
      ::close(fd);
    }
    throw Error(fmt::format("cannot read {}: {}", path, std::strerror(err)));
  }
  // A pipe has no size: read until the end, growing the buffer.
  buffer.resize(std::max(buffer.size(), static_cast<std::size_t>(std::max<off_t>(st.st_size, 0)) + 1));
  std::size_t done = 0;
  while (true) {
    if (done == buffer.size()) {
      if (done > util::k_log_limit) {
        ::close(fd);
        throw Error(fmt::format("cannot read {}: it is larger than {}", util::printable(path),
                                util::format_bytes(util::k_log_limit)));
      }
      buffer.resize(buffer.size() * 2);
    }
    const ssize_t n = ::read(fd, buffer.data() + done, buffer.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw Error(fmt::format("cannot read {}: {}", path, std::strerror(err)));
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return {buffer.data(), done};
}

std::string read_whole(const std::string& path)
{
  return util::read_file(path);
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

const rapidjson::Value* member(const rapidjson::Value& v, std::initializer_list<const char*> path)
{
  const rapidjson::Value* at = &v;
  for (const char* key : path) {
    if (!at->IsObject() || !at->HasMember(key)) {
      return nullptr;
    }
    at = &(*at)[key];
  }
  return at;
}

std::string text_at(const rapidjson::Value& v, std::initializer_list<const char*> path)
{
  const auto* at = member(v, path);
  return at != nullptr && at->IsString() ? std::string(at->GetString(), at->GetStringLength()) : std::string();
}

void read_identity(Run& run, const std::string& file)
{
  run.info.identity_json = read_whole(file);
  rapidjson::Document doc;
  doc.Parse(run.info.identity_json.c_str(), run.info.identity_json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    const auto offset = doc.HasParseError() ? doc.GetErrorOffset() : 0;
    const auto line = std::count(run.info.identity_json.begin(),
                                 run.info.identity_json.begin() + static_cast<std::ptrdiff_t>(offset), '\n') +
                      1;
    run.diagnostics.push_back(
        {file, static_cast<std::uint32_t>(line),
         fmt::format("not a run identity ({}): the run's caliber is taken from its log",
                     doc.HasParseError() ? rapidjson::GetParseError_En(doc.GetParseError()) : "not a JSON object")});
    run.info.identity_json.clear();
    return;
  }
  auto& i = run.info;
  i.caliber = {text_at(doc, {"backend", "name"}), text_at(doc, {"level"}), text_at(doc, {"timer", "effective"}),
               text_at(doc, {"mode"}), text_at(doc, {"tuner_cache", "mode"})};
  i.op = text_at(doc, {"node", "op"});
  i.status = text_at(doc, {"status"});
  if (const auto* d = member(doc, {"duration_s"}); d != nullptr && d->IsNumber()) {
    i.duration_s = d->GetDouble();
  }
  i.device_uuid = text_at(doc, {"device", "uuid"});
  i.device_name = text_at(doc, {"device", "name"});
  i.started_at = text_at(doc, {"started_at"});
  i.zl_version = text_at(doc, {"zl_version"});
  i.record_file = text_at(doc, {"record_log"});
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

Source::Kind sniff(const std::string& file)
{
  // A record log is "[INFO] …" lines; anything else is read as text output. The head is enough.
  const auto text = util::read_head(file, 1 << 20);
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool record = first != std::string::npos && text.compare(first, 7, "[INFO] ") == 0 &&
                      text.find("\nOperator: ") == std::string::npos;
  return record ? Source::Kind::record_log : Source::Kind::text_log;
}

void walk(const fs::path& dir, int depth, std::vector<Source>& out)
{
  boost::system::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || !fs::is_directory(it->path(), ec)) {
      continue;
    }
    if (is_run_folder(it->path().string())) {
      out.push_back({it->path().string(), Source::Kind::run_folder});
    } else if (depth < 6) {
      walk(it->path(), depth + 1, out);
    }
  }
}

} // namespace

std::string normal_path(const std::string& path)
{
  const fs::path p(util::absolute(path));
  // Boost spells a trailing slash as a last component "."
  return (p.filename() == "." ? p.parent_path() : p).string();
}

bool is_run_folder(const std::string& dir)
{
  boost::system::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "run_identity.json", ec) ||
         fs::is_regular_file(fs::path(dir) / "run.log", ec);
}

std::vector<Source> discover(const std::string& path)
{
  boost::system::error_code ec;
  const fs::path abs = normal_path(path);
  if (!fs::exists(abs, ec)) {
    throw Error(fmt::format("{} does not exist", util::printable(path)));
  }
  if (!fs::is_directory(abs, ec)) {
    return {{abs.string(), sniff(abs.string())}};
  }
  if (::access(abs.c_str(), R_OK | X_OK) != 0) {
    throw Error(fmt::format("cannot read the folder {}: {}", util::printable(path), std::strerror(errno)));
  }
  if (is_run_folder(abs.string())) {
    return {{abs.string(), Source::Kind::run_folder}};
  }
  std::vector<Source> out;
  walk(abs, 1, out);
  if (out.empty()) {
    throw Error(
        fmt::format("{} holds no run folder (a folder with run_identity.json or run.log) and is not a log file", path));
  }
  std::sort(out.begin(), out.end(), [](const Source& a, const Source& b) { return a.path < b.path; });
  return out;
}

Run load(const Source& source, std::shared_ptr<Arena> arena)
{
  Run run;
  run.arena = std::move(arena);
  run.text.use(run.arena.get());
  run.info.path = source.path;
  LogParse log;
  std::vector<RecordEntry> entries;
  if (source.kind == Source::Kind::run_folder) {
    run.info.kind = "run";
    const auto dir = fs::path(source.path);
    if (fs::exists(dir / "run_identity.json")) {
      read_identity(run, (dir / "run_identity.json").string());
    }
    if (fs::exists(dir / "run.log")) {
      run.info.log_file = (dir / "run.log").string();
      log = parse_text_log(read_file(run.info.log_file, thread_buffer()), run.info.log_file, run.text, run.diagnostics);
    }
    const auto named = run.info.record_file.empty() ? std::string("record.log") : run.info.record_file;
    util::resolve_inside(source.path, named, "the record_log of its identity"); // throws when it leads outside
    const auto record = (dir / named).string();
    run.info.record_file = fs::exists(record) ? record : std::string();
    if (!run.info.record_file.empty()) {
      entries = parse_record_log(read_file(record, thread_buffer()), record, run.diagnostics);
    }
    std::string timer; // ZL_RUN's, else the identity's; a copy: the marker may not outlive this
    if (log.run_header >= 0) {
      timer = log.markers[static_cast<std::size_t>(log.run_header)].get("timer");
    }
    const auto default_timer = run.text.copy(timer.empty() ? run.info.caliber.timer : timer);
    if (merge_record(log.rows, log.tables, entries, default_timer, run.text, run.info.record_file, run.diagnostics)) {
      number_occurrences(log.rows);
    }
  } else if (source.kind == Source::Kind::text_log) {
    run.info.kind = "log";
    run.info.log_file = source.path;
    log = parse_text_log(read_file(source.path, thread_buffer()), source.path, run.text, run.diagnostics);
  } else {
    run.info.kind = "record";
    run.info.record_file = source.path;
    entries = parse_record_log(read_file(source.path, thread_buffer()), source.path, run.diagnostics);
    log.rows = record_rows(entries, run.text);
  }
  fill_from_log(run, log, entries);
  run.rows = std::move(log.rows);
  run.markers = std::move(log.markers);
  return run;
}

std::vector<Run> load_all(const std::vector<Source>& sources, unsigned threads)
{
  std::vector<Run> runs(sources.size());
  std::vector<std::exception_ptr> errors(sources.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    // One arena per thread: the runs it reads share it, and it lives while any of them does.
    const auto arena = std::make_shared<Arena>();
    for (std::size_t i; (i = next++) < sources.size();) {
      try {
        runs[i] = load(sources[i], arena);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned n = std::min<unsigned>(threads ? threads : std::clamp(std::thread::hardware_concurrency(), 1u, 8u),
                                        static_cast<unsigned>(std::max<std::size_t>(sources.size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) {
    pool.emplace_back(work);
  }
  work();
  for (auto& t : pool) {
    t.join();
  }
  for (auto& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
  return runs;
}

void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diags)
{
  for (const auto& d : diags) {
    out << (d.line > 0 ? fmt::format("{}:{}: {}\n", d.file, d.line, d.reason)
                       : fmt::format("{}: {}\n", d.file, d.reason));
  }
}

} // namespace zl::results
