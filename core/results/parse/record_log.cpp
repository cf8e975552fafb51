#include "results/parse/record_log.hpp"

#include "results/parse/markers.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace zl::results::parse {

namespace {

// JSON as Python's json.dumps spaces it, so that a record row reads like FlagGems' own log.
void dump(const rapidjson::Value& v, std::string& out)
{
  if (v.IsArray()) {
    out += '[';
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      out += i ? ", " : "";
      dump(v[i], out);
    }
    out += ']';
  } else if (v.IsObject()) {
    out += '{';
    bool first = true;
    for (const auto& m : v.GetObject()) {
      out += first ? "" : ", ";
      first = false;
      dump(m.name, out);
      out += ": ";
      dump(m.value, out);
    }
    out += '}';
  } else if (v.IsString()) {
    out += '"';
    for (const char c : std::string_view(v.GetString(), v.GetStringLength())) {
      out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    }
    out += '"';
  } else if (v.IsBool()) {
    out += v.GetBool() ? "true" : "false";
  } else if (v.IsNull()) {
    out += "null";
  } else if (v.IsInt64()) {
    out += std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    out += std::to_string(v.GetUint64());
  } else {
    out += fmt::format("{}", v.GetDouble());
  }
}

double number(const rapidjson::Value& item, const char* key)
{
  const auto it = item.FindMember(key);
  return it != item.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : k_na;
}

std::string text(const rapidjson::Value& v, const char* key)
{
  const auto it = v.FindMember(key);
  return it != v.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength())
                                                     : std::string();
}

// Does the table's printed value agree with the record's full-precision one?
bool agrees(double printed, double full, double decimals)
{
  if (!has_value(printed) || !has_value(full)) {
    return has_value(printed) == has_value(full);
  }
  return std::fabs(printed - full) <= 0.51 * std::pow(10.0, -decimals) + 1e-12 * std::fabs(full);
}

// The rows of an entry: they share its labels, except a failed item's, which carries its message.
void add_rows(Rows& rows, const RecordEntry& e, std::string_view timer, TextStore& store, std::size_t from = 0)
{
  const auto* shared = store.keep({store.copy(e.op), store.copy(e.dtype), timer, {}});
  for (std::size_t k = from; k < e.items.size(); ++k) {
    const auto& item = e.items[k];
    Row r;
    r.labels = item.error.empty() ? shared : store.keep({shared->op, shared->dtype, timer, store.copy(item.error)});
    r.shape = store.copy(item.shape);
    r.success = item.error.empty();
    r.torch_ms = item.torch_ms, r.gems_ms = item.gems_ms, r.speedup = item.speedup;
    r.tflops = item.tflops, r.torch_gbps = item.torch_gbps, r.gems_gbps = item.gems_gbps;
    r.line = e.line;
    r.source = RowSource::record;
    rows.push_back(r);
  }
}

} // namespace

std::vector<RecordEntry> parse_record_log(std::string_view text_, const std::string& file,
                                          std::vector<Diagnostic>& diags)
{
  std::vector<RecordEntry> entries;
  std::uint32_t line_no = 0;
  std::size_t reported = 0;
  auto report = [&](std::string reason) {
    if (++reported <= 100) {
      diags.push_back({file, line_no, std::move(reason)});
    }
  };
  std::size_t pos = 0;
  while (pos < text_.size()) {
    const auto nl = text_.find('\n', pos);
    auto line = text_.substr(pos, (nl == std::string_view::npos ? text_.size() : nl) - pos);
    pos = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.substr(0, 8) != "[INFO] {") {
      continue;
    }
    rapidjson::Document doc;
    const auto json = line.substr(7);
    doc.Parse(json.data(), json.size());
    if (doc.HasParseError()) {
      report(fmt::format("record log line is not JSON ({} at column {}{}): \"{}\"",
                         rapidjson::GetParseError_En(doc.GetParseError()), doc.GetErrorOffset() + 8,
                         json.substr(0, 2) == "{'" ? "; a --query run logs Python reprs" : "",
                         printable_excerpt(line)));
      continue;
    }
    if (!doc.IsObject() || text(doc, "op_name").empty() || !doc.HasMember("result") || !doc["result"].IsArray()) {
      report(fmt::format("record log entry without op_name and a result list: \"{}\"", printable_excerpt(line)));
      continue;
    }
    RecordEntry e;
    e.op = text(doc, "op_name");
    e.dtype = text(doc, "dtype");
    e.mode = text(doc, "mode");
    e.level = text(doc, "level");
    e.line = line_no;
    for (const auto& item : doc["result"].GetArray()) {
      if (!item.IsObject()) {
        report(fmt::format("record log entry {} {}: a result item that is not an object", e.op, e.dtype));
        continue;
      }
      RecordItem r;
      if (const auto s = item.FindMember("shape_detail"); s != item.MemberEnd()) {
        dump(s->value, r.shape);
      }
      r.torch_ms = number(item, "latency_base");
      r.gems_ms = number(item, "latency");
      r.speedup = number(item, "speedup");
      r.tflops = number(item, "tflops");
      r.torch_gbps = number(item, "gbps_base");
      r.gems_gbps = number(item, "gbps");
      if (const auto m = item.FindMember("error_msg"); m != item.MemberEnd() && !m->value.IsNull()) {
        r.error = m->value.IsString() ? text(item, "error_msg") : "error";
      }
      e.items.push_back(std::move(r));
    }
    entries.push_back(std::move(e));
  }
  if (reported > 100) {
    diags.push_back({file, 0, fmt::format("{} more malformed lines not shown", reported - 100)});
  }
  return entries;
}

bool merge_record(Rows& rows, const std::vector<TableInfo>& tables, const std::vector<RecordEntry>& entries,
                  std::string_view default_timer, TextStore& store, const std::string& record_file,
                  std::vector<Diagnostic>& diags, std::vector<Diagnostic>& foreign)
{
  using Key = std::pair<std::string_view, std::string_view>;
  std::map<Key, std::vector<const TableInfo*>> by_key;
  for (const auto& t : tables) {
    by_key[{t.op, t.dtype}].push_back(&t);
  }
  std::map<Key, std::size_t> seen;
  bool added = false;
  bool cut = false; // a table was cut off: the log ends there, and the records after it are its
  for (const auto& e : entries) {
    const Key key{e.op, e.dtype};
    const std::size_t nth = seen[key]++;
    const auto it = by_key.find(key);
    const bool printed_op = std::any_of(tables.begin(), tables.end(), [&](const TableInfo& t) { return t.op == e.op; });
    if (!tables.empty() && !printed_op && !cut) {
      // The session printed tables, none of this op: the record was written by another session
      // into this file (a warm worker whose logging kept an earlier op's record log open).
      foreign.push_back({record_file, e.line,
                         fmt::format("record log entry {} {} is of an op whose table this run never printed: a "
                                     "record of another run (foreign), not counted",
                                     e.op, e.dtype)});
      continue;
    }
    if (it == by_key.end() || nth >= it->second.size()) {
      add_rows(rows, e, default_timer, store);
      added = added || !e.items.empty();
      continue;
    }
    const auto& t = *it->second[nth];
    const std::size_t printed = t.end_row - t.first_row;
    if (printed > e.items.size()) {
      diags.push_back({record_file, e.line,
                       fmt::format("record log entry {} {} has {} results, its table (line {}) {} rows: the table's "
                                   "values are kept",
                                   e.op, e.dtype, e.items.size(), t.line, printed)});
      continue;
    }
    std::size_t bad = printed;
    for (std::size_t i = 0; i < printed && bad == printed; ++i) {
      const auto& r = rows[t.first_row + i];
      bad = agrees(r.torch_ms, e.items[i].torch_ms, 6) && agrees(r.gems_ms, e.items[i].gems_ms, 6) ? bad : i;
    }
    if (bad < printed) {
      diags.push_back({record_file, e.line,
                       fmt::format("record log entry {} {} disagrees with its table at row {} (line {}): the table's "
                                   "values are kept",
                                   e.op, e.dtype, bad + 1, rows[t.first_row + bad].line)});
      continue;
    }
    if (printed < e.items.size()) {
      // A table cut off (a truncated run.log): the record log has the rows it lost.
      diags.push_back({record_file, e.line,
                       fmt::format("record log entry {} {} has {} results, its table (line {}) {} rows: the other {} "
                                   "are taken from the record log",
                                   e.op, e.dtype, e.items.size(), t.line, printed, e.items.size() - printed)});
      add_rows(rows, e, printed > 0 ? rows[t.first_row].timer() : default_timer, store, printed);
      added = true;
      cut = true;
    }
    for (std::size_t i = 0; i < printed; ++i) {
      auto& r = rows[t.first_row + i];
      const auto& item = e.items[i];
      r.torch_ms = item.torch_ms;
      r.gems_ms = item.gems_ms;
      r.speedup = has_value(item.speedup) ? item.speedup : r.speedup;
      r.tflops = has_value(item.tflops) ? item.tflops : r.tflops;
      r.torch_gbps = has_value(item.torch_gbps) ? item.torch_gbps : r.torch_gbps;
      r.gems_gbps = has_value(item.gems_gbps) ? item.gems_gbps : r.gems_gbps;
      if (r.error().empty() && !item.error.empty()) {
        r.labels = store.keep({r.op(), r.dtype(), r.timer(), store.copy(item.error)});
      }
    }
  }
  return added;
}

Rows record_rows(const std::vector<RecordEntry>& entries, TextStore& store)
{
  Rows rows{util::ArenaAllocator<Row>(store.arena())};
  for (const auto& e : entries) {
    add_rows(rows, e, {}, store);
  }
  number_occurrences(rows);
  return rows;
}

} // namespace zl::results::parse
