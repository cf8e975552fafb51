#include "results/parse/table_parser.hpp"

#include "results/parse/input.hpp"
#include "results/parse/marker_names.hpp"
#include "results/parse/markers.hpp"
#include "results/parse/table_lines.hpp"
#include "results/parse/test_scopes.hpp"
#include "util/flat_index.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>

namespace zl::results::parse {

namespace {

namespace names = marker_names;

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

class Parser
{
public:
  Parser(LineReader& in, const std::string& file, TextStore& store, std::vector<Diagnostic>& diags, RowSink* sink)
    : m_in(in), m_file(file), m_store(store), m_diags(diags), m_sink(sink)
  {
    m_out.rows = Rows(util::ArenaAllocator<Row>(store.arena()));
  }

  LogParse run();

private:
  enum class State { outside, want_columns, want_separator, in_table };
  static constexpr std::size_t k_max_reports = 100;

  void report(std::uint32_t line, std::string reason);
  std::string table_name() const;
  void line(std::string_view text);
  void outside(std::string_view text);
  void row(std::string_view text);
  void emit(Row& r);
  void end_table();
  void marker(Marker m);
  void keep_marker(Marker m);
  void failure_line(const FailureLine& f, std::string_view text);
  void resolve_pending();
  std::string_view timer() const { return m_scopes.current().timer.empty() ? m_run_timer : m_scopes.current().timer; }
  // The labels of op, dtype and timer: one copy for every table that shares them.
  const RowLabels* labels(std::string_view op, std::string_view dtype, std::string_view timer)
  {
    auto& kept = m_labels[{op.data(), dtype.data(), timer.data()}];
    if (kept == nullptr) {
      kept = m_store.keep({m_store.intern(op), m_store.intern(dtype), m_store.intern(timer), {}});
    }
    return kept;
  }

  LineReader& m_in;
  const std::string& m_file;
  TextStore& m_store;
  std::vector<Diagnostic>& m_diags;
  RowSink* m_sink;
  std::size_t m_reported = 0;
  LogParse m_out;
  State m_state = State::outside;
  std::uint32_t m_line = 0;
  std::string_view m_run_timer;
  TestScopes m_scopes;
  const RowLabels* m_table_labels = nullptr;    // the current table's, made at its first row
  const RowLabels* m_fallback_labels = nullptr; // the same, timed directly
  // Interned texts are told apart by where they are: a key of three pointers.
  std::map<std::array<const char*, 3>, const RowLabels*> m_labels;
  std::set<std::array<const char*, 4>> m_titles; // with a sink: the titles of the tables kept
};

void Parser::report(std::uint32_t line, std::string reason)
{
  // A garbage file must not flood stderr or memory: keep the first ones and count the rest.
  if (++m_reported <= k_max_reports) {
    m_diags.push_back({m_file, line, std::move(reason)});
  }
}

std::string Parser::table_name() const
{
  const auto& t = m_out.tables.back();
  return fmt::format("{} {}", t.op, t.dtype);
}

LogParse Parser::run()
{
  if (m_sink == nullptr) {
    m_out.rows.reserve(m_in.size_hint() / 100); // a table row is 110 bytes or more: no regrowth
  }
  std::string_view text;
  while (m_in.next(text)) {
    ++m_line;
    line(text);
  }
  if (m_state == State::in_table) {
    end_table();
  } else if (m_state != State::outside) {
    report(m_line, fmt::format("table {}: the log ends inside its header", table_name()));
    m_out.tables.pop_back();
  }
  resolve_pending();
  if (m_reported > k_max_reports) {
    m_diags.push_back({m_file, 0, fmt::format("{} more malformed lines not shown", m_reported - k_max_reports)});
  }
  number_occurrences(m_out.rows);
  return std::move(m_out);
}

void Parser::line(std::string_view text)
{
  switch (m_state) {
  case State::in_table:
    if (starts_with(text, "SUCCESS ") || starts_with(text, "FAILED ")) {
      row(text);
    } else if (trim_blanks(text).empty()) {
      end_table();
    } else if (starts_with(text, "Operator: ") || parse_marker(text).marker) {
      end_table();
      outside(text);
    } else {
      report(m_line, fmt::format("not a row of the table {}: \"{}\"", table_name(), printable_excerpt(text)));
    }
    return;
  case State::want_columns:
    if (const auto problem = check_columns(text); !problem.empty()) {
      report(m_line, fmt::format("table {}: {}: \"{}\"", table_name(), problem, printable_excerpt(text, 140)));
      m_out.tables.pop_back();
      m_state = State::outside;
      outside(text);
    } else {
      m_state = State::want_separator;
    }
    return;
  case State::want_separator:
    if (text.size() >= 10 && text.find_first_not_of('-') == std::string_view::npos) {
      m_state = State::in_table;
    } else {
      report(m_line, fmt::format("table {}: expected the dashed line under the column header, got \"{}\"", table_name(),
                                 printable_excerpt(text)));
      m_out.tables.pop_back();
      m_state = State::outside;
      outside(text);
    }
    return;
  case State::outside:
    outside(text);
    return;
  }
}

void Parser::outside(std::string_view text)
{
  if (text.empty()) {
    return;
  }
  std::string error;
  if (starts_with(text, "Operator: ")) {
    if (auto t = parse_title(text, error)) {
      const auto n = static_cast<std::uint32_t>(m_out.rows_read);
      m_out.tables.push_back({m_store.intern(t->op), m_store.intern(t->dtype), m_store.intern(t->mode),
                              m_store.intern(t->level), m_line, n, n});
      m_table_labels = m_fallback_labels = nullptr;
      m_state = State::want_columns;
    } else {
      report(m_line, fmt::format("{}: \"{}\"", error, printable_excerpt(text)));
    }
    return;
  }
  if (auto f = parse_failure_line(text, error)) {
    failure_line(*f, text);
    return;
  }
  if (!error.empty()) {
    report(m_line, fmt::format("{}: \"{}\"", error, printable_excerpt(text)));
    return;
  }
  if (auto f = parse_test_failure(text)) {
    if (!is_dtype_refusal(f->reason)) {
      m_scopes.failed(f->node, f->reason, m_line);
    }
    return;
  }
  if (text[0] >= 'A' && text[0] <= 'Z') {
    auto parsed = parse_marker(text);
    if (parsed.marker) {
      parsed.marker->line = m_line;
      marker(std::move(*parsed.marker));
    } else if (!parsed.error.empty()) {
      report(m_line, parsed.error);
    }
  }
}

void Parser::row(std::string_view text)
{
  const auto& table = m_out.tables.back();
  Row r;
  if (const char* problem = parse_row(text, r)) {
    report(m_line, fmt::format("malformed row of the table {} ({}; truncated?): \"{}\"", table_name(), problem,
                               printable_excerpt(text)));
    return;
  }
  r.line = m_line;
  if (m_table_labels == nullptr) {
    m_table_labels = labels(table.op, table.dtype, timer());
  }
  r.labels = m_table_labels;
  auto& scope = m_scopes.current();
  for (const auto& f : scope.fallbacks) {
    if (f.shape == r.shape && f.op == table.op && f.dtype == table.dtype) {
      r.fallback = true;
      if (m_fallback_labels == nullptr) {
        m_fallback_labels = labels(table.op, table.dtype, "direct");
      }
      r.labels = m_fallback_labels;
      if (m_sink == nullptr) {
        auto& m = m_out.markers[f.marker];
        m.row = m.row < 0 ? static_cast<std::int64_t>(m_out.rows_read) : m.row;
      }
    }
  }
  scope.failed = scope.failed || !r.success;
  emit(r);
}

// A row into the log's rows, or to the sink (its Size Detail then still views the line).
void Parser::emit(Row& r)
{
  ++m_out.rows_read;
  if (m_sink != nullptr) {
    m_sink->row(r);
    return;
  }
  r.shape = m_store.copy(r.shape);
  m_out.rows.push_back(r);
}

void Parser::end_table()
{
  auto& t = m_out.tables.back();
  t.end_row = static_cast<std::uint32_t>(m_out.rows_read);
  if (t.end_row == t.first_row) {
    report(t.line, fmt::format("table {} has no rows", table_name()));
  }
  m_state = State::outside;
  if (m_sink != nullptr && !m_titles.insert({t.op.data(), t.dtype.data(), t.mode.data(), t.level.data()}).second) {
    m_out.tables.pop_back(); // its title is kept already: what a streaming reader asks of tables
  }
}

void Parser::marker(Marker m)
{
  auto& current = m_scopes.current();
  if (m.name == names::k_zl_run) {
    m_run_timer = m_store.intern(m.get("timer"));
  } else if (m.name == names::k_zl_timer) {
    if (!m.has("timer")) {
      report(m_line, fmt::format("{} marker without timer=: the rows that follow keep the previous timer", m.name));
    }
    Scope s;
    s.node = m.get("node");
    s.op = m.get("op");
    s.timer = m.has("timer") ? m_store.intern(m.get("timer")) : current.timer;
    m_scopes.open(std::move(s));
  } else if (m.name == names::k_benchmark_direct_no_cudagraph) {
    if (!m.has("op") || !m.has("dtype") || !m.has("shape")) {
      report(m_line, fmt::format("{} marker without op=, dtype= and shape=: it matches no row", m.name));
    } else {
      current.fallbacks.push_back({m.get("op"), m.get("dtype"), m.get("shape"), m_out.markers.size()});
    }
  } else if (m.name == names::k_benchmark_capture_poisoned && m_sink == nullptr) {
    current.poisoned.push_back(m_out.markers.size());
  } else if (m.name == names::k_zl_unsupported) {
    m_scopes.unsupported(m.get("node"));
  }
  m.op = m.has("op") && m.name != names::k_zl_run ? m.get("op") : m_scopes.current().op;
  keep_marker(std::move(m));
}

void Parser::keep_marker(Marker m)
{
  ++m_out.markers_read;
  const bool header = m.name == names::k_zl_run;
  if (m_sink != nullptr) {
    m_sink->marker(m);
    if (header) { // the one marker the run's caliber is read from
      m_out.markers.clear();
      m_out.markers.push_back(std::move(m));
      m_out.run_header = 0;
    }
    return;
  }
  if (header) {
    m_out.run_header = static_cast<std::int64_t>(m_out.markers.size());
  }
  m_out.markers.push_back(std::move(m));
}

void Parser::failure_line(const FailureLine& f, std::string_view text)
{
  Row r;
  r.line = m_line;
  // Kept before reading ahead, which may move the line.
  const auto op = m_store.copy(f.op);
  const auto dtype = m_store.copy(f.dtype);
  const std::size_t length = text.size();
  // The message may span lines: it ends at the first >>> after <<<.
  const std::size_t close = m_in.find_ahead(f.message_offset, ">>>");
  std::string_view error;
  if (close == LineReader::npos) {
    report(m_line, "FlagGems failure line: err=<<< is never closed by >>>");
    error = m_store.copy(trim_blanks(m_in.raw(f.message_offset, length)));
  } else {
    error = m_store.copy(trim_blanks(m_in.raw(f.message_offset, close)));
    if (close + 3 > m_in.line_span()) {
      m_line += static_cast<std::uint32_t>(m_in.skip_past_line_of(close)); // the lines the message spans
    }
  }
  r.labels = m_store.keep({op, dtype, m_store.intern(timer()), error});
  r.source = RowSource::failure_line;
  m_scopes.current().failed = true;
  emit(r);
}

void Parser::resolve_pending()
{
  for (const auto& f : m_scopes.unexplained(m_run_timer)) {
    Row r;
    r.labels = m_store.keep({m_store.copy(f.op), {}, m_store.intern(f.timer), m_store.copy(f.reason)});
    r.line = f.line;
    r.source = RowSource::test_failure;
    if (f.poisoned != nullptr && m_sink == nullptr) {
      for (const auto k : *f.poisoned) {
        m_out.markers[k].row = static_cast<std::int64_t>(m_out.rows_read);
      }
    }
    emit(r);
  }
}

} // namespace

void number_occurrences(Rows& rows)
{
  // One index per thread, emptied slot by slot: a campaign numbers thousands of small runs.
  thread_local util::FlatIndex index;
  index.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    const auto h =
        util::hash_mix(util::hash_mix(util::hash_text(r.op()), util::hash_text(r.dtype())), util::hash_text(r.shape));
    auto& last = index.slot(h, [&](std::uint32_t j) {
      return rows[j].shape == r.shape && rows[j].op() == r.op() && rows[j].dtype() == r.dtype();
    });
    r.occurrence = last == util::FlatIndex::k_none ? 0 : rows[last].occurrence + 1;
    last = static_cast<std::uint32_t>(i);
  }
}

LogParse parse_text_log(std::string_view text, const std::string& file, TextStore& store,
                        std::vector<Diagnostic>& diags)
{
  LineReader in(text);
  return Parser(in, file, store, diags, nullptr).run();
}

LogParse parse_text_log(LineReader& in, const std::string& file, TextStore& store, std::vector<Diagnostic>& diags,
                        RowSink* sink)
{
  return Parser(in, file, store, diags, sink).run();
}

} // namespace zl::results::parse
