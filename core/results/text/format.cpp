#include "results/text/format.hpp"

#include "results/parse/marker_names.hpp"
#include "util/error.hpp"
#include "util/json.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace zl::results::text {

using namespace compare; // the report renders what compare computes

namespace {

std::string csv_cell(const std::string& s)
{
  if (s.find_first_of(",\"\n\r") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (const char c : s) {
    out += c == '"' ? "\"\"" : std::string(1, c);
  }
  return out + "\"";
}

std::string md_cell(const std::string& s)
{
  std::string out;
  for (const char c : s) {
    out += c == '|' ? "\\|" : std::string(1, c);
  }
  return out;
}

void json_group(util::JsonWriter& j, const GroupSummary& g)
{
  auto& w = j.w();
  w.StartObject();
  j.field("op", g.op);
  j.field("dtype", g.dtype);
  j.field("rows", g.rows);
  j.field("measured", g.measured);
  j.key("geomean_speedup");
  has_value(g.geomean_speedup) ? w.Double(g.geomean_speedup) : w.Null();
  j.key("min_speedup");
  has_value(g.min_speedup) ? w.Double(g.min_speedup) : w.Null();
  j.key("max_speedup");
  has_value(g.max_speedup) ? w.Double(g.max_speedup) : w.Null();
  j.field("failed", g.failed);
  j.field("fallback", g.fallback);
  j.key("status");
  g.status.empty() ? w.Null() : w.String(g.status.c_str(), static_cast<rapidjson::SizeType>(g.status.size()));
  json_samples(j, g);
  json_peak(j, g);
  w.EndObject();
}

// The ops whose campaign did not call them ok, as "op status, …": those FlagGems declined
// (declined true: unsupported, skipped) or the others.
std::string unfinished(const std::vector<OpOutcome>& ops, bool declined)
{
  std::string out;
  for (const auto& o : ops) {
    if (o.status != OpState::ok && settled(o.status) == declined) {
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", o.op, name(o.status));
    }
  }
  return out;
}

} // namespace

Format parse_format(const std::string& name)
{
  if (name == "text") {
    return Format::text;
  }
  if (name == "md") {
    return Format::md;
  }
  if (name == "csv") {
    return Format::csv;
  }
  if (name == "json") {
    return Format::json;
  }
  throw Error(fmt::format("--format {} is not known; use one of: text, md, csv, json", name));
}

std::string fixed(double v, int decimals)
{
  return has_value(v) ? fmt::format("{:.{}f}", v, decimals) : "-";
}

std::string render(const Table& t, Format f)
{
  std::string out;
  if (f == Format::csv) {
    for (const auto* row : {&t.header}) {
      for (std::size_t c = 0; c < row->size(); ++c) {
        out += (c ? "," : "") + csv_cell((*row)[c]);
      }
      out += "\n";
    }
    for (const auto& row : t.rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        out += (c ? "," : "") + csv_cell(row[c]);
      }
      out += "\n";
    }
    return out;
  }
  if (f == Format::md) {
    auto line = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (const auto& c : cells) {
        out += " " + md_cell(c) + " |";
      }
      out += "\n";
    };
    line(t.header);
    out += "|";
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      out += c < t.right.size() && t.right[c] ? " ---: |" : " --- |";
    }
    out += "\n";
    for (const auto& row : t.rows) {
      line(row);
    }
    return out;
  }
  std::vector<std::size_t> width(t.header.size());
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    width[c] = t.header[c].size();
    for (const auto& row : t.rows) {
      width[c] = std::max(width[c], c < row.size() ? row[c].size() : 0);
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      const auto& cell = c < cells.size() ? cells[c] : std::string();
      const bool right = c < t.right.size() && t.right[c];
      text += right ? fmt::format("{:>{}}", cell, width[c]) : fmt::format("{:<{}}", cell, width[c]);
      text += c + 1 < t.header.size() ? "  " : "";
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out += text + "\n";
  };
  line(t.header);
  for (const auto& row : t.rows) {
    line(row);
  }
  return out;
}

std::string format_summary(const Summary& s, const std::vector<std::string>& paths, Format f)
{
  if (f == Format::json) {
    util::JsonWriter j;
    auto& w = j.w();
    w.StartObject();
    j.field("version", 2); // 2: groups' status, ops, attempts (1 had no version field)
    j.strings("paths", paths);
    j.field("runs", static_cast<unsigned long long>(s.runs));
    j.key("calibers");
    w.StartArray();
    for (const auto& [caliber, runs] : s.calibers) {
      w.StartObject();
      j.field("caliber", caliber);
      j.field("runs", runs);
      w.EndObject();
    }
    w.EndArray();
    j.key("groups");
    w.StartArray();
    for (const auto& g : s.groups) {
      json_group(j, g);
    }
    w.EndArray();
    j.key("total");
    json_group(j, s.total);
    j.key("markers");
    w.StartObject();
    for (const auto& [name, count] : s.markers) {
      j.key(name);
      w.StartObject();
      j.field("count", count);
      const auto ops = s.marker_ops.find(name);
      j.strings("ops", ops == s.marker_ops.end() ? std::vector<std::string>()
                                                 : std::vector<std::string>(ops->second.begin(), ops->second.end()));
      w.EndObject();
    }
    w.EndObject();
    j.key("ops");
    w.StartArray();
    for (const auto& o : s.ops) {
      w.StartObject();
      j.field("campaign", o.campaign), j.field("op", o.op), j.field("status", std::string(name(o.status)));
      w.EndObject();
    }
    w.EndArray();
    j.strings("attempts", s.attempts);
    json_unstable(j, s);
    json_peaks(j, s);
    j.field("telemetry_runs", static_cast<unsigned long long>(s.telemetry_runs));
    j.field("unplaced_rows", static_cast<unsigned long long>(s.unplaced_rows)); // throttling unknown
    w.EndObject();
    return j.text();
  }
  Table t;
  const bool csv = f == Format::csv;
  t.header = csv ? std::vector<std::string>{"op",          "dtype",       "rows",   "geomean_speedup",
                                            "min_speedup", "max_speedup", "failed", "fallback"}
                 : std::vector<std::string>{"OP", "DTYPE", "ROWS", "SPEEDUP", "MIN", "MAX", "FAILED", "FALLBACK"};
  t.right = {false, false, true, true, true, true, true, true};
  // A campaign's ops_status.csv gives each op a status, and a run FlagGems declined has one: a
  // column of its own, only then.
  const bool status = !s.ops.empty() || std::any_of(s.groups.begin(), s.groups.end(),
                                                    [](const GroupSummary& g) { return !g.status.empty(); });
  if (status) {
    t.header.push_back(csv ? "status" : "STATUS");
    t.right.push_back(false);
  }
  auto add_row = [&](const GroupSummary& g, bool total) {
    t.rows.push_back({g.op, g.dtype.empty() && !total ? "-" : g.dtype, std::to_string(g.rows), fixed(g.geomean_speedup),
                      fixed(g.min_speedup), fixed(g.max_speedup), std::to_string(g.failed),
                      std::to_string(g.fallback)});
    if (status) {
      t.rows.back().push_back(total ? "" : g.status.empty() ? "-" : g.status);
    }
  };
  for (const auto& g : s.groups) {
    add_row(g, false);
  }
  add_row(s.total, true);
  append_sample_columns(t, s, f);
  append_peak_columns(t, s, f);
  if (csv) {
    return render(t, f);
  }
  const bool md = f == Format::md;
  auto counted = [](auto n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  std::string out = fmt::format("{}zl summary of {}: {}, {}\n", md ? "## " : "",
                                paths.empty() ? std::string("the store") : fmt::format("{}", fmt::join(paths, ", ")),
                                counted(s.runs, "run"), counted(s.total.rows, "row"));
  for (const auto& [caliber, runs] : s.calibers) {
    out += fmt::format("{}caliber: {} ({})\n", md ? "- " : "", caliber, counted(runs, "run"));
  }
  out += "\n" + render(t, f) + "\n";
  out += md ? "" : "SPEEDUP is the geometric mean of torch latency / FlagGems latency over the rows that succeeded.\n";
  out += samples_notes(s, md);
  out += peak_notes(s, md);
  if (const auto ops = unfinished(s.ops, true); !ops.empty()) {
    out += fmt::format("{}declined by FlagGems, not failures: {} (unsupported: a requested dtype the op does not "
                       "take; skipped: every test skipped)\n",
                       md ? "\n" : "", ops);
  }
  if (const auto ops = unfinished(s.ops, false); !ops.empty()) {
    out += fmt::format("{}did not finish ok: {} (STATUS from ops_status.csv; their rows, if any, are partial; "
                       "each counts one failure)\n",
                       md ? "\n" : "", ops);
  }
  if (!s.attempts.empty()) {
    out += fmt::format("{}earlier attempts, not counted: {}\n", md ? "\n" : "", fmt::join(s.attempts, ", "));
  }
  // The two markers the issue names are always counted, so that a zero is visible.
  std::map<std::string, long long> markers = s.markers;
  markers.emplace(parse::marker_names::k_benchmark_capture_poisoned, 0);
  markers.emplace(parse::marker_names::k_autotune_replay_fallback, 0);
  out += md ? "\n" : "markers:\n";
  for (const auto& [name, count] : markers) {
    const auto ops = s.marker_ops.find(name);
    out += fmt::format("{}{} {}{}\n", md ? "- " : "  ", name, count,
                       ops == s.marker_ops.end() ? "" : fmt::format(" ({})", fmt::join(ops->second, ", ")));
  }
  return out;
}

} // namespace zl::results::text
