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
#include <sstream>

namespace zl::results::store {

namespace {

// Not "bind": with a std::string argument, argument-dependent lookup would pick std::bind.
void bind_arg(sqlite3_stmt* s, int i, std::string_view v)
{
  // An empty view may have no data pointer, which SQLite binds as NULL: a row without a dtype
  // (pytest's FAILED line) would then break the NOT NULL columns.
  sqlite3_bind_text(s, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()), SQLITE_STATIC);
}
void bind_arg(sqlite3_stmt* s, int i, double v)
{
  has_value(v) ? sqlite3_bind_double(s, i, v) : sqlite3_bind_null(s, i);
}
void bind_arg(sqlite3_stmt* s, int i, long long v)
{
  sqlite3_bind_int64(s, i, v);
}
void bind_arg(sqlite3_stmt* s, int i, const std::optional<double>& v)
{
  v ? sqlite3_bind_double(s, i, *v) : sqlite3_bind_null(s, i);
}

std::string_view text(sqlite3_stmt* s, int i)
{
  const auto* p = sqlite3_column_text(s, i);
  return p == nullptr
             ? std::string_view()
             : std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
}
double real(sqlite3_stmt* s, int i)
{
  return sqlite3_column_type(s, i) == SQLITE_NULL ? k_na : sqlite3_column_double(s, i);
}

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
                                      "zl_version, identity";

} // namespace

struct Store::Impl
{
  explicit Impl(const std::string& path) : db(path) { db.migrate(); }
  Db db;
  std::ostream* report = nullptr;
  bool to_output = true; // report through util::out() (until set_report_stream)
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
  std::ostringstream said;
  if (auto* report = m_impl->to_output ? &said : m_impl->report) {
    parse::print_diagnostics(*report, run.diagnostics);
    parse::print_diagnostics(*report, run.foreign);
  }
  if (!said.str().empty()) {
    util::out().say(said.str());
  }
  return ingest(run);
}

long long Store::ingest(const Run& run)
{
  const auto& db = m_impl->db;
  Transaction t(db);
  auto del = db.prepare("DELETE FROM runs WHERE path = ?");
  bind_arg(del.get(), 1, run.info.path);
  db.step_done(del.get());

  auto ins = db.prepare("INSERT INTO runs (path, kind, log_file, record_file, op, backend, level, timer, mode, "
                        "tuner_cache, status, duration_s, device_uuid, device_name, started_at, zl_version, identity) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const auto& i = run.info;
  const auto& c = i.caliber;
  int k = 0;
  for (const std::string* v : {&i.path, &i.kind, &i.log_file, &i.record_file, &i.op, &c.backend, &c.level, &c.timer,
                               &c.mode, &c.tuner_cache, &i.status}) {
    bind_arg(ins.get(), ++k, std::string_view(*v));
  }
  bind_arg(ins.get(), ++k, i.duration_s);
  for (const std::string* v : {&i.device_uuid, &i.device_name, &i.started_at, &i.zl_version, &i.identity_json}) {
    bind_arg(ins.get(), ++k, std::string_view(*v));
  }
  db.step_done(ins.get());
  const long long run_id = sqlite3_last_insert_rowid(db.get());

  auto row = db.prepare("INSERT INTO rows (run_id, seq, op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, "
                        "speedup, tflops, torch_gbps, gems_gbps, timer, fallback, error, source, line) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
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
    bind_arg(s, 18, static_cast<long long>(r.line));
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
  t.commit();
  return static_cast<long long>(run.rows.size());
}

std::vector<Run> Store::load(const std::vector<std::string>& paths) const
{
  const auto& db = m_impl->db;
  std::vector<std::pair<long long, Run>> found;
  auto take = [&](sqlite3_stmt* s) {
    Run run;
    auto& i = run.info;
    const auto str = [&](int col) { return std::string(text(s, col)); };
    i.path = str(1), i.kind = str(2), i.log_file = str(3), i.record_file = str(4), i.op = str(5);
    i.caliber = {str(6), str(7), str(8), str(9), str(10)};
    i.status = str(11);
    if (sqlite3_column_type(s, 12) != SQLITE_NULL) {
      i.duration_s = sqlite3_column_double(s, 12);
    }
    i.device_uuid = str(13), i.device_name = str(14), i.started_at = str(15), i.zl_version = str(16);
    i.identity_json = str(17);
    i.extra_args = parse::identity_extra_args(i.identity_json);
    i.executor = parse::identity_executor(i.identity_json);
    found.emplace_back(sqlite3_column_int64(s, 0), std::move(run));
  };
  if (paths.empty()) {
    auto s = db.prepare(fmt::format("SELECT {} FROM runs ORDER BY path", k_run_columns));
    while (sqlite3_step(s.get()) == SQLITE_ROW) {
      take(s.get());
    }
  } else {
    auto s = db.prepare(fmt::format("SELECT {} FROM runs WHERE path = ?", k_run_columns));
    for (const auto& p : paths) {
      bind_arg(s.get(), 1, std::string_view(p));
      if (sqlite3_step(s.get()) != SQLITE_ROW) {
        throw Error(fmt::format("the results store {} holds no run {}", db.path(), p));
      }
      take(s.get());
      sqlite3_reset(s.get());
    }
  }
  auto rows = db.prepare("SELECT op, dtype, size_detail, occurrence, status, torch_ms, gems_ms, speedup, tflops, "
                         "torch_gbps, gems_gbps, timer, fallback, error, source, line FROM rows WHERE run_id = ? "
                         "ORDER BY seq");
  auto marks = db.prepare("SELECT name, op, line, row_seq, fields FROM markers WHERE run_id = ? ORDER BY seq");
  std::vector<Run> runs;
  for (auto& [id, run] : found) {
    auto* s = rows.get();
    sqlite3_bind_int64(s, 1, id);
    const RowLabels* labels = nullptr; // rows of a table come in a row: share their labels
    while (sqlite3_step(s) == SQLITE_ROW) {
      Row r;
      if (labels == nullptr || labels->op != text(s, 0) || labels->dtype != text(s, 1) ||
          labels->timer != text(s, 11) || labels->error != text(s, 13)) {
        labels = run.text.keep({run.text.copy(text(s, 0)), run.text.copy(text(s, 1)), run.text.copy(text(s, 11)),
                                run.text.copy(text(s, 13))});
      }
      r.labels = labels;
      r.shape = run.text.copy(text(s, 2));
      r.occurrence = static_cast<std::uint32_t>(sqlite3_column_int64(s, 3));
      r.success = text(s, 4) == "SUCCESS";
      r.torch_ms = real(s, 5), r.gems_ms = real(s, 6), r.speedup = real(s, 7), r.tflops = real(s, 8);
      r.torch_gbps = real(s, 9), r.gems_gbps = real(s, 10);
      r.fallback = sqlite3_column_int(s, 12) != 0;
      r.source = source_of(text(s, 14));
      r.line = static_cast<std::uint32_t>(sqlite3_column_int64(s, 15));
      run.rows.push_back(r);
    }
    sqlite3_reset(s);
    s = marks.get();
    sqlite3_bind_int64(s, 1, id);
    while (sqlite3_step(s) == SQLITE_ROW) {
      Marker m;
      m.name = std::string(text(s, 0));
      m.op = std::string(text(s, 1));
      m.line = static_cast<std::uint32_t>(sqlite3_column_int64(s, 2));
      m.row = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 3);
      rapidjson::Document fields;
      const auto json = text(s, 4);
      fields.Parse(json.data(), json.size());
      for (auto it = fields.IsObject() ? fields.MemberBegin() : fields.MemberEnd(); it != fields.MemberEnd(); ++it) {
        if (it->value.IsString()) {
          m.fields.emplace_back(it->name.GetString(), it->value.GetString());
        }
      }
      run.markers.push_back(std::move(m));
    }
    sqlite3_reset(s);
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
