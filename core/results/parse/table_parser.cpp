#include "results/parse/table_parser.hpp"

#include "results/parse/marker_names.hpp"
#include "results/parse/markers.hpp"
#include "results/parse/table_lines.hpp"
#include "util/flat_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace zl::results::parse {

namespace {

namespace names = marker_names;

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

struct FallbackMark
{
  std::string op, dtype, shape;
  std::size_t marker;
};

// One test, from its ZL_TIMER on: the timer of its tables and its fallback markers.
struct Scope
{
  std::string node, op;
  std::string_view timer;
  std::vector<FallbackMark> fallbacks;
  std::vector<std::size_t> poisoned; // its BENCHMARK_CAPTURE_POISONED markers: they concern its failure
  bool failed = false;               // it left a FAILED row or a failure line
};

struct PendingFailure
{
  std::string node, reason;
  std::uint32_t line;
};

class Parser
{
public:
  Parser(std::string_view text, const std::string& file, TextStore& store, std::vector<Diagnostic>& diags)
    : m_text(text), m_file(file), m_store(store), m_diags(diags)
  {
    m_out.rows = Rows(util::ArenaAllocator<Row>(store.arena()));
  }

  LogParse run();

private:
  enum class State { outside, want_columns, want_separator, in_table };
  static constexpr std::size_t k_max_reports = 100;

  void report(std::uint32_t line, std::string reason);
  std::string table_name() const;
  void line(std::string_view text, std::size_t& next);
  void outside(std::string_view text, std::size_t& next);
  void row(std::string_view text);
  void end_table();
  void marker(Marker m);
  void failure_line(const FailureLine& f, std::string_view text, std::size_t& next);
  void resolve_pending();
  std::string_view timer() const { return m_scopes.back().timer.empty() ? m_run_timer : m_scopes.back().timer; }
  const RowLabels* labels(std::string_view op, std::string_view dtype, std::string_view timer, std::string_view error)
  {
    return m_store.keep({op, dtype, timer, error});
  }

  std::string_view m_text;
  const std::string& m_file;
  TextStore& m_store;
  std::vector<Diagnostic>& m_diags;
  std::size_t m_reported = 0;
  LogParse m_out;
  State m_state = State::outside;
  std::uint32_t m_line = 0;
  std::string_view m_run_timer;
  std::vector<Scope> m_scopes{Scope{}};
  const RowLabels* m_table_labels = nullptr;    // the current table's, made at its first row
  const RowLabels* m_fallback_labels = nullptr; // the same, timed directly
  std::vector<PendingFailure> m_pending;
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
  m_out.rows.reserve(m_text.size() / 100); // a table row is 110 bytes or more: no regrowth
  std::size_t pos = 0;
  while (pos < m_text.size()) {
    const void* nl = std::memchr(m_text.data() + pos, '\n', m_text.size() - pos);
    std::size_t next = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - m_text.data()) + 1 : m_text.size();
    std::string_view text = m_text.substr(pos, next - pos);
    if (!text.empty() && text.back() == '\n') {
      text.remove_suffix(1);
    }
    if (!text.empty() && text.back() == '\r') {
      text.remove_suffix(1);
    }
    ++m_line;
    line(text, next);
    pos = next;
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

void Parser::line(std::string_view text, std::size_t& next)
{
  switch (m_state) {
  case State::in_table:
    if (starts_with(text, "SUCCESS ") || starts_with(text, "FAILED ")) {
      row(text);
    } else if (trim_blanks(text).empty()) {
      end_table();
    } else if (starts_with(text, "Operator: ") || parse_marker(text).marker) {
      end_table();
      outside(text, next);
    } else {
      report(m_line, fmt::format("not a row of the table {}: \"{}\"", table_name(), printable_excerpt(text)));
    }
    return;
  case State::want_columns:
    if (const auto problem = check_columns(text); !problem.empty()) {
      report(m_line, fmt::format("table {}: {}: \"{}\"", table_name(), problem, printable_excerpt(text, 140)));
      m_out.tables.pop_back();
      m_state = State::outside;
      outside(text, next);
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
      outside(text, next);
    }
    return;
  case State::outside:
    outside(text, next);
    return;
  }
}

void Parser::outside(std::string_view text, std::size_t& next)
{
  if (text.empty()) {
    return;
  }
  std::string error;
  if (starts_with(text, "Operator: ")) {
    if (auto t = parse_title(text, error)) {
      const auto n = static_cast<std::uint32_t>(m_out.rows.size());
      m_out.tables.push_back(
          {m_store.copy(t->op), m_store.copy(t->dtype), m_store.copy(t->mode), m_store.copy(t->level), m_line, n, n});
      m_table_labels = m_fallback_labels = nullptr;
      m_state = State::want_columns;
    } else {
      report(m_line, fmt::format("{}: \"{}\"", error, printable_excerpt(text)));
    }
    return;
  }
  if (auto f = parse_failure_line(text, error)) {
    failure_line(*f, text, next);
    return;
  }
  if (!error.empty()) {
    report(m_line, fmt::format("{}: \"{}\"", error, printable_excerpt(text)));
    return;
  }
  if (auto f = parse_test_failure(text)) {
    if (!is_dtype_refusal(f->reason)) {
      m_pending.push_back({std::string(f->node), std::string(f->reason), m_line});
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
  r.shape = m_store.copy(r.shape);
  r.line = m_line;
  if (m_table_labels == nullptr) {
    m_table_labels = labels(table.op, table.dtype, timer(), {});
  }
  r.labels = m_table_labels;
  auto& scope = m_scopes.back();
  for (const auto& f : scope.fallbacks) {
    if (f.shape == r.shape && f.op == table.op && f.dtype == table.dtype) {
      r.fallback = true;
      if (m_fallback_labels == nullptr) {
        m_fallback_labels = labels(table.op, table.dtype, "direct", {});
      }
      r.labels = m_fallback_labels;
      auto& m = m_out.markers[f.marker];
      m.row = m.row < 0 ? static_cast<std::int64_t>(m_out.rows.size()) : m.row;
    }
  }
  scope.failed = scope.failed || !r.success;
  m_out.rows.push_back(r);
}

void Parser::end_table()
{
  auto& t = m_out.tables.back();
  t.end_row = static_cast<std::uint32_t>(m_out.rows.size());
  if (t.end_row == t.first_row) {
    report(t.line, fmt::format("table {} has no rows", table_name()));
  }
  m_state = State::outside;
}

void Parser::marker(Marker m)
{
  if (m.name == names::k_zl_run) {
    m_run_timer = m_store.copy(m.get("timer"));
    m_out.run_header = static_cast<std::int64_t>(m_out.markers.size());
  } else if (m.name == names::k_zl_timer) {
    if (!m.has("timer")) {
      report(m_line, fmt::format("{} marker without timer=: the rows that follow keep the previous timer", m.name));
    }
    Scope s;
    s.node = m.get("node");
    s.op = m.get("op");
    s.timer = m.has("timer") ? m_store.copy(m.get("timer")) : m_scopes.back().timer;
    m_scopes.push_back(std::move(s));
  } else if (m.name == names::k_benchmark_direct_no_cudagraph) {
    if (!m.has("op") || !m.has("dtype") || !m.has("shape")) {
      report(m_line, fmt::format("{} marker without op=, dtype= and shape=: it matches no row", m.name));
    } else {
      m_scopes.back().fallbacks.push_back({m.get("op"), m.get("dtype"), m.get("shape"), m_out.markers.size()});
    }
  } else if (m.name == names::k_benchmark_capture_poisoned) {
    m_scopes.back().poisoned.push_back(m_out.markers.size());
  }
  m.op = m.has("op") && m.name != names::k_zl_run ? m.get("op") : m_scopes.back().op;
  m_out.markers.push_back(std::move(m));
}

void Parser::failure_line(const FailureLine& f, std::string_view text, std::size_t& next)
{
  Row r;
  r.line = m_line;
  // The message may span lines: it ends at the first >>> after <<<.
  const std::size_t begin = static_cast<std::size_t>(text.data() - m_text.data()) + f.message_offset;
  const std::size_t close = m_text.find(">>>", begin);
  std::string_view error;
  if (close == std::string_view::npos) {
    report(m_line, "FlagGems failure line: err=<<< is never closed by >>>");
    error = trim_blanks(text.substr(f.message_offset));
  } else {
    error = trim_blanks(m_text.substr(begin, close - begin));
    if (close + 3 > next) {
      // Step over the lines the message spans, counting them.
      const auto nl = m_text.find('\n', close);
      const std::size_t stop = nl == std::string_view::npos ? m_text.size() : nl + 1;
      for (std::size_t k = next; k < stop; ++k) {
        m_line += m_text[k] == '\n' ? 1u : 0u;
      }
      m_line += nl == std::string_view::npos ? 1u : 0u;
      next = stop;
    }
  }
  r.labels = labels(m_store.copy(f.op), m_store.copy(f.dtype), timer(), m_store.copy(error));
  r.source = RowSource::failure_line;
  m_scopes.back().failed = true;
  m_out.rows.push_back(r);
}

void Parser::resolve_pending()
{
  // A failed test counts once: as the FAILED rows or the failure line it left, else as itself.
  for (const auto& f : m_pending) {
    // zl_identity said FlagGems refused a dtype there: pytest's line for it may be cut before
    // the words is_dtype_refusal knows.
    const bool refused = std::any_of(m_out.markers.begin(), m_out.markers.end(), [&](const Marker& m) {
      return m.name == names::k_zl_unsupported && same_node(m.get("node"), f.node);
    });
    if (refused) {
      continue;
    }
    const Scope* scope = nullptr;
    bool left_trace = false;
    for (const auto& s : m_scopes) {
      if (!s.node.empty() && same_node(s.node, f.node)) {
        scope = &s;
        left_trace = left_trace || s.failed;
      }
    }
    if (left_trace) {
      continue;
    }
    Row r;
    r.labels = labels(m_store.copy(scope != nullptr && !scope->op.empty() ? scope->op : op_of_node(f.node)), {},
                      scope != nullptr && !scope->timer.empty() ? scope->timer : m_run_timer,
                      m_store.copy(f.reason.empty() ? "the test failed" : f.reason));
    r.line = f.line;
    r.source = RowSource::test_failure;
    if (scope != nullptr) {
      for (const auto k : scope->poisoned) {
        m_out.markers[k].row = static_cast<std::int64_t>(m_out.rows.size());
      }
    }
    m_out.rows.push_back(r);
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
  return Parser(text, file, store, diags).run();
}

} // namespace zl::results::parse
