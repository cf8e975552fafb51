// zl summary's output: an aligned text table (the default), Markdown, CSV, or JSON. Text and
// Markdown add the notes a person needs (caliber, unpaired and failed rows, what the verdicts
// mean); CSV is the table alone; JSON is everything, each pairing included.
#pragma once

#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "util/json.hpp"

#include <string>
#include <utility>
#include <vector>

namespace zl::results::text {

enum class Format { text, md, csv, json };

// text, md, csv or json; throws Error (exit 2) for anything else.
Format parse_format(const std::string& name);

// A table to render: right-aligned columns hold numbers.
struct Table
{
  std::vector<std::string> header;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> rows;
};

// text: columns two spaces apart; md: a GitHub table; csv: RFC 4180 (json: not a table).
std::string render(const Table& t, Format f);

// A number with fixed decimals, or "-" when there is none.
std::string fixed(double v, int decimals = 3);

std::string format_summary(const compare::Summary& s, const std::vector<std::string>& paths, Format f);

// The samples' part of zl summary (format_samples.cpp): columns per group, the notes below the
// table, the JSON fields of a group and the unstable rows.
void append_sample_columns(Table& t, const compare::Summary& s, Format f);
std::string samples_notes(const compare::Summary& s, bool md);
void json_samples(util::JsonWriter& j, const compare::GroupSummary& g);
void json_unstable(util::JsonWriter& j, const compare::Summary& s);

// The spec peaks' part of zl summary (format_peak.cpp): %BW and %TFLOPS per group where some group
// has one, the notes naming each device's SKU and sheet, the JSON fields of a group and the list.
void append_peak_columns(Table& t, const compare::Summary& s, Format f);
std::string peak_notes(const compare::Summary& s, bool md);
void json_peak(util::JsonWriter& j, const compare::GroupSummary& g);
void json_peaks(util::JsonWriter& j, const compare::Summary& s);

// zl summary --rows: every row with its samples' n, median, noise, interval, stop and warnings.
std::string format_rows(const std::vector<Run>& runs, Format f);

// What the A/B output says about its inputs.
struct AbView
{
  std::string a_path, b_path;
  std::string a_caliber, b_caliber; // describe() of each side, " | "-joined when mixed
  bool forced = false;              // --force: compared although the calibers differ
  compare::AbOptions options;
  std::vector<std::pair<char, OpOutcome>> unfinished = {}; // 'A' or 'B': ops its campaign did not call ok
};

std::string format_ab(const compare::AbResult& r, const AbView& view, Format f);

} // namespace zl::results::text
