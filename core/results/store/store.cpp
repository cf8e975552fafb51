#include "results/store/store.hpp"

#include "results/parse/sources.hpp"
#include "results/store/schema.hpp"
#include "util/error.hpp"
#include "util/output.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <set>
#include <sstream>

namespace zl::results::store {

namespace {

std::string fields_json(const Marker& m)
{
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  for (const auto& [k, v] : m.fields) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

RowSource source_of(std::string_view s)
{
  return s == "record"         ? RowSource::record
         : s == "failure_line" ? RowSource::failure_line
         : s == "test_failure" ? RowSource::test_failure
                               : RowSource::table;
}

constexpr const char* k_run_columns = "id, path, kind, log_file, record_file, op, backend, level, timer, mode, "
                                      "tuner_cache, status, duration_s, device_uuid, device_name, started_at, "
                                      "zl_version, identity, samples_file, telemetry_file, throttle_cause";

// The samples' BLOBs: little-endian float32 on every host (schema version 2 says why).
void encode_floats(const std::vector<float>& v, std::string& out)
{
  out.resize(v.size() * 4);
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v[i], sizeof bits);
    for (std::size_t b = 0; b < 4; ++b) {
      out[4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
    }
  }
}
// Column col as n floats; false when it is not a BLOB of 4 * n bytes.
bool decode_floats(sqlite3_stmt* s, int col, std::size_t n, std::vector<float>& out)
{
  if (sqlite3_column_type(s, col) != SQLITE_BLOB) { // first: a type read after a conversion means nothing
    return false;
  }
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(s, col));
  if (static_cast<std::size_t>(sqlite3_column_bytes(s, col)) != 4 * n) {
    return false;
  }
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto* q = p + 4 * i;
    const auto byte = [q](int k) { return static_cast<std::uint32_t>(q[k]); }; // shifted as unsigned
    const std::uint32_t bits = byte(0) | (byte(1) << 8) | (byte(2) << 16) | (byte(3) << 24);
    std::memcpy(&out[i], &bits, sizeof bits);
  }
  return true;
}

// Each side of each row that kept samples, in the transaction of the run's rows.
void write_samples(const Db& db, long long run_id, const Run& run)
{
  if (run.samples.empty()) {
    return;
  }
  auto ins = db.prepare("INSERT INTO samples (run_id, row_seq, side, n, stop, timer, calls, returned, t0, "
                        "stamps_measured, ms, at_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  std::string ms, at_s; // reused: one allocation for the run, not one a row
  for (std::size_t seq = 0; seq < run.rows.size(); ++seq) {
    for (const bool gems : {false, true}) {
      const auto* set = run.samples_of(run.rows[seq], gems);
      if (set == nullptr) {
        continue;
      }
      if (set->at_s.size() != set->ms.size()) { // parse_samples never gives this: a bug of zl
        throw Error(fmt::format("cannot store the samples of row {} of {} in {}: {} times but {} end times; report "
                                "this as a bug of zl",
                                seq, run.info.path, db.path(), set->ms.size(), set->at_s.size()));
      }
      encode_floats(set->ms, ms), encode_floats(set->at_s, at_s);
      auto* s = ins.get();
      bind_arg(s, 1, run_id), bind_arg(s, 2, static_cast<long long>(seq)), bind_arg(s, 3, gems ? "gems" : "torch");
      bind_arg(s, 4, static_cast<long long>(set->ms.size())), bind_arg(s, 5, to_string(set->stop));
      bind_arg(s, 6, set->timer), bind_arg(s, 7, static_cast<long long>(set->calls)), bind_arg(s, 8, set->returned);
      bind_arg(s, 9, set->t0), bind_arg(s, 10, set->stamps_measured ? 1LL : 0LL);
      sqlite3_bind_blob(s, 11, ms.data(), static_cast<int>(ms.size()), SQLITE_STATIC);
      sqlite3_bind_blob(s, 12, at_s.data(), static_cast<int>(at_s.size()), SQLITE_STATIC);
      db.step_done(s);
    }
  }
}

// Rebuilds run.samples and its rows' indices in the order attach_samples gives them (row by row,
// torch first). A side the store holds damaged (BLOBs not of n floats, an unknown stop: a store
// edited by hand or broken) is left out with a diagnostic: its row's latency stands without it,
// as with a damaged record of samples.bin, and the rest of a campaign stays readable.
void read_samples(const Db& db, sqlite3_stmt* s, long long run_id, Run& run)
{
  sqlite3_bind_int64(s, 1, run_id);
  std::string_view timer; // sides of a run share one copy of their timer
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto seq = sqlite3_column_int64(s, 0);
    const auto side = std::string(column_text(s, 1));
    const auto n = sqlite3_column_int64(s, 2);
    SampleSet set;
    std::string why;
    if (seq < 0 || static_cast<std::size_t>(seq) >= run.rows.size()) {
      why = fmt::format("the run has no row {}", seq);
    } else if (!parse_sample_stop(column_text(s, 3), set.stop)) {
      why = fmt::format("its stop '{}' is none of fixed, converged, max_samples, max_time", column_text(s, 3));
    } else if (n < 0 || !decode_floats(s, 9, static_cast<std::size_t>(n), set.ms) ||
               !decode_floats(s, 10, static_cast<std::size_t>(n), set.at_s)) {
      why = fmt::format("ms and at_s are not BLOBs of n={} float32 ({} and {} bytes)", n, sqlite3_column_bytes(s, 9),
                        sqlite3_column_bytes(s, 10));
    }
    if (!why.empty()) {
      run.diagnostics.push_back({db.path(), 0,
                                 fmt::format("the {} samples of row {} of {}: {}; left out (the row stands without "
                                             "them): ingest the run folder again to replace them",
                                             side, seq, run.info.path, why)});
      continue;
    }
    if (timer != column_text(s, 4)) {
      timer = run.text.copy(column_text(s, 4));
    }
    set.timer = timer, set.calls = static_cast<std::uint32_t>(sqlite3_column_int64(s, 5));
    set.returned = column_real(s, 6), set.t0 = column_real(s, 7), set.stamps_measured = sqlite3_column_int(s, 8) != 0;
    set.stats = describe_samples(std::vector<double>(set.ms.begin(), set.ms.end()));
    auto& row = run.rows[static_cast<std::size_t>(seq)];
    (side == "gems" ? row.gems_samples : row.torch_samples) = static_cast<std::int32_t>(run.samples.size());
    run.samples.push_back(std::move(set));
  }
  if (rc != SQLITE_DONE) {
    db.fail("reading samples");
  }
  sqlite3_reset(s);
}

} // namespace

struct Store::Impl
{
  explicit Impl(const std::string& path) : db(path) { db.migrate(); }
  Db db;
  std::ostream* report = nullptr;
  bool to_output = true; // report through util::out() (until set_report_stream)

  // Says each list's diagnostics as FILE:LINE: reason, where set_report_stream asked.
  void say(std::initializer_list<const std::vector<Diagnostic>*> lists) const
  {
    std::ostringstream said;
    if (auto* out = to_output ? &said : report) {
      for (const auto* list : lists) {
        parse::print_diagnostics(*out, *list);
      }
    }
    if (!said.str().empty()) {
      util::out().say(said.str());
    }
  }
};

Store::Store(const std::string& path) : m_impl(std::make_unique<Impl>(path)) {}
Store::~Store() = default;

sqlite3* Store::handle() const
{
  return m_impl->db.get();
}

void Store::set_report_stream(std::ostream* out)
{
  m_impl->report = out;
  m_impl->to_output = false;
}

long long Store::ingest_run(const std::string& run_dir)
{
  const auto path = parse::normal_path(run_dir);
  if (!parse::is_run_folder(path)) {
    throw Error(fmt::format("{} is not a run folder (no run_identity.json or run.log)", run_dir));
  }
  const auto run = parse::load(parse::Source{path, parse::Source::Kind::run_folder});
  m_impl->say({&run.diagnostics, &run.foreign});
  return ingest(run);
}

long long Store::ingest(const Run& run)
{
  const auto& db = m_impl->db;
  Transaction t(db);
  auto del = db.prepare("DELETE FROM runs WHERE path = ?");
  bind_arg(del.get(), 1, run.info.path);
  db.step_done(del.get());

  auto ins =
      db.prepare("INSERT INTO runs (path, kind, log_file, record_file, op, backend, level, timer, mode, "
                 "tuner_cache, status, duration_s, device_uuid, device_name, started_at, zl_version, identity, "
                 "samples_file, telemetry_file, throttle_cause) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                 "?, ?, ?, ?, ?, ?)");
  const auto& i = run.info;
  const auto& c = i.caliber;
  int k = 0;
  for (const std::string* v : {&i.path, &i.kind, &i.log_file, &i.record_file, &i.op, &c.backend, &c.level, &c.timer,
                               &c.mode, &c.tuner_cache, &i.status}) {
    bind_arg(ins.get(), ++k, std::string_view(*v));
  }
  bind_arg(ins.get(), ++k, i.duration_s);
  for (const std::string* v : {&i.device_uuid, &i.device_name, &i.started_at, &i.zl_version, &i.identity_json,
                               &i.samples_file, &i.telemetry_file, &i.throttle_cause}) {
    bind_arg(ins.get(), ++k, std::string_view(*v));
  }
  db.step_done(ins.get());
  const long long run_id = sqlite3_last_insert_rowid(db.get());

  auto row = db.prepare("INSERT INTO rows (run_id, seq, op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, "
                        "speedup, tflops, torch_gbps, gems_gbps, timer, fallback, error, source, line, throttled) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  long long seq = 0;
  for (const auto& r : run.rows) {
    auto* s = row.get();
    bind_arg(s, 1, run_id), bind_arg(s, 2, seq++), bind_arg(s, 3, r.op()), bind_arg(s, 4, r.dtype()),
        bind_arg(s, 5, r.shape);
    bind_arg(s, 6, static_cast<long long>(r.occurrence)),
        bind_arg(s, 7, std::string_view(r.success ? "SUCCESS" : "FAILED"));
    bind_arg(s, 8, r.torch_ms), bind_arg(s, 9, r.gems_ms), bind_arg(s, 10, r.speedup), bind_arg(s, 11, r.tflops);
    bind_arg(s, 12, r.torch_gbps), bind_arg(s, 13, r.gems_gbps), bind_arg(s, 14, r.timer());
    bind_arg(s, 15, r.fallback ? 1LL : 0LL), bind_arg(s, 16, r.error()),
        bind_arg(s, 17, std::string_view(to_string(r.source)));
    bind_arg(s, 18, static_cast<long long>(r.line)), bind_arg(s, 19, r.throttled ? 1LL : 0LL);
    db.step_done(s);
  }
  auto mark =
      db.prepare("INSERT INTO markers (run_id, seq, name, op, line, row_seq, fields) VALUES (?, ?, ?, ?, ?, ?, ?)");
  seq = 0;
  for (const auto& m : run.markers) {
    auto* s = mark.get();
    const auto fields = fields_json(m);
    bind_arg(s, 1, run_id), bind_arg(s, 2, seq++), bind_arg(s, 3, std::string_view(m.name)),
        bind_arg(s, 4, std::string_view(m.op));
    bind_arg(s, 5, static_cast<long long>(m.line));
    m.row >= 0 ? bind_arg(s, 6, static_cast<long long>(m.row)) : static_cast<void>(sqlite3_bind_null(s, 6));
    bind_arg(s, 7, std::string_view(fields));
    db.step_done(s);
  }
  write_samples(db, run_id, run);
  t.commit();
  return static_cast<long long>(run.rows.size());
}

namespace {

// A row of SELECT k_run_columns FROM runs: the run without its rows.
Run run_of(sqlite3_stmt* s)
{
  Run run;
  auto& i = run.info;
  const auto str = [&](int col) { return std::string(column_text(s, col)); };
  i.path = str(1), i.kind = str(2), i.log_file = str(3), i.record_file = str(4), i.op = str(5);
  i.caliber = {str(6), str(7), str(8), str(9), str(10)};
  i.status = str(11);
  if (sqlite3_column_type(s, 12) != SQLITE_NULL) {
    i.duration_s = sqlite3_column_double(s, 12);
  }
  i.device_uuid = str(13), i.device_name = str(14), i.started_at = str(15), i.zl_version = str(16);
  i.identity_json = str(17), i.samples_file = str(18), i.telemetry_file = str(19), i.throttle_cause = str(20);
  parse::caliber_from_identity(i, i.identity_json);
  return run;
}

void read_rows(sqlite3_stmt* s, long long run_id, Run& run)
{
  sqlite3_bind_int64(s, 1, run_id);
  const RowLabels* labels = nullptr; // rows of a table come in a row: share their labels
  while (sqlite3_step(s) == SQLITE_ROW) {
    Row r;
    if (labels == nullptr || labels->op != column_text(s, 0) || labels->dtype != column_text(s, 1) ||
        labels->timer != column_text(s, 11) || labels->error != column_text(s, 13)) {
      labels = run.text.keep({run.text.copy(column_text(s, 0)), run.text.copy(column_text(s, 1)),
                              run.text.copy(column_text(s, 11)), run.text.copy(column_text(s, 13))});
    }
    r.labels = labels;
    r.shape = run.text.copy(column_text(s, 2));
    r.occurrence = static_cast<std::uint32_t>(sqlite3_column_int64(s, 3));
    r.success = column_text(s, 4) == "SUCCESS";
    r.torch_ms = column_real(s, 5), r.gems_ms = column_real(s, 6), r.speedup = column_real(s, 7),
    r.tflops = column_real(s, 8);
    r.torch_gbps = column_real(s, 9), r.gems_gbps = column_real(s, 10);
    r.fallback = sqlite3_column_int(s, 12) != 0;
    r.source = source_of(column_text(s, 14));
    r.line = static_cast<std::uint32_t>(sqlite3_column_int64(s, 15));
    r.throttled = sqlite3_column_int(s, 16) != 0;
    run.info.throttled_rows += r.throttled ? 1U : 0U;
    run.rows.push_back(r);
  }
  sqlite3_reset(s);
}

void read_markers(sqlite3_stmt* s, long long run_id, Run& run)
{
  sqlite3_bind_int64(s, 1, run_id);
  while (sqlite3_step(s) == SQLITE_ROW) {
    Marker m;
    m.name = std::string(column_text(s, 0));
    m.op = std::string(column_text(s, 1));
    m.line = static_cast<std::uint32_t>(sqlite3_column_int64(s, 2));
    m.row = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 3);
    rapidjson::Document fields;
    const auto json = column_text(s, 4);
    fields.Parse(json.data(), json.size());
    for (auto it = fields.IsObject() ? fields.MemberBegin() : fields.MemberEnd(); it != fields.MemberEnd(); ++it) {
      if (it->value.IsString()) {
        m.fields.emplace_back(it->name.GetString(), it->value.GetString());
      }
    }
    run.markers.push_back(std::move(m));
  }
  sqlite3_reset(s);
}

} // namespace

std::vector<Run> Store::load_infos() const
{
  std::vector<Run> runs;
  auto s = m_impl->db.prepare(fmt::format("SELECT {} FROM runs ORDER BY path", k_run_columns));
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    runs.push_back(run_of(s.get()));
  }
  return runs;
}

std::vector<std::string> Store::paths_with_ops(const std::vector<std::string>& ops) const
{
  std::set<std::string> paths;
  auto s =
      m_impl->db.prepare("SELECT DISTINCT runs.path FROM rows JOIN runs ON runs.id = rows.run_id WHERE rows.op = ?");
  for (const auto& op : ops) {
    bind_arg(s.get(), 1, std::string_view(op));
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
      paths.insert(std::string(column_text(s.get(), 0)));
    }
    sqlite3_reset(s.get());
  }
  return {paths.begin(), paths.end()};
}

std::vector<Run> Store::load(const std::vector<std::string>& paths) const
{
  const auto& db = m_impl->db;
  std::vector<std::pair<long long, Run>> found;
  if (paths.empty()) {
    auto s = db.prepare(fmt::format("SELECT {} FROM runs ORDER BY path", k_run_columns));
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
      found.emplace_back(sqlite3_column_int64(s.get(), 0), run_of(s.get()));
    }
  } else {
    auto s = db.prepare(fmt::format("SELECT {} FROM runs WHERE path = ?", k_run_columns));
    for (const auto& p : paths) {
      bind_arg(s.get(), 1, std::string_view(p));
      if (sqlite3_step(s.get()) != SQLITE_ROW) {
        throw Error(fmt::format("the results store {} holds no run {}", db.path(), p));
      }
      found.emplace_back(sqlite3_column_int64(s.get(), 0), run_of(s.get()));
      sqlite3_reset(s.get());
    }
  }
  auto rows =
      db.prepare("SELECT op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, speedup, tflops, "
                 "torch_gbps, gems_gbps, timer, fallback, error, source, line, throttled FROM rows WHERE run_id = ? "
                 "ORDER BY seq");
  auto marks = db.prepare("SELECT name, op, line, row_seq, fields FROM markers WHERE run_id = ? ORDER BY seq");
  auto samples = db.prepare("SELECT row_seq, side, n, stop, timer, calls, returned, t0, stamps_measured, ms, at_s "
                            "FROM samples WHERE run_id = ? ORDER BY row_seq, side = 'gems'");
  std::vector<Run> runs;
  runs.reserve(found.size());
  for (auto& [id, run] : found) {
    read_rows(rows.get(), id, run);
    read_markers(marks.get(), id, run);
    read_samples(db, samples.get(), id, run);
    m_impl->say({&run.diagnostics});
    runs.push_back(std::move(run));
  }
  return runs;
}

std::optional<double> Store::expected_duration(const std::string& backend, const std::string& op) const
{
  auto s = m_impl->db.prepare("SELECT duration_s FROM runs WHERE backend = ? AND op = ? AND status = 'ok' AND "
                              "duration_s IS NOT NULL ORDER BY duration_s");
  bind_arg(s.get(), 1, std::string_view(backend));
  bind_arg(s.get(), 2, std::string_view(op));
  std::vector<double> d;
  while (sqlite3_step(s.get()) == SQLITE_ROW) {
    d.push_back(sqlite3_column_double(s.get(), 0));
  }
  if (d.empty()) {
    return std::nullopt;
  }
  return d.size() % 2 == 1 ? d[d.size() / 2] : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
}

} // namespace zl::results::store
