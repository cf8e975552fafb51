// FlagGems' record log (--record log, docs/flaggems-facts.md §3): one JSON object per
// operator and dtype on a line "[INFO] {…}", with the same rows as the text table at full
// precision.
#pragma once

#include "results/model.hpp"
#include "results/parse/table_parser.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace zl::results::parse {

struct RecordItem
{
  std::string shape; // shape_detail as JSON, spaced as Python's json.dumps writes it
  double torch_ms = k_na, gems_ms = k_na, speedup = k_na, tflops = k_na, torch_gbps = k_na, gems_gbps = k_na;
  std::string error; // error_msg; empty when null
};

struct RecordEntry
{
  std::string op, dtype, mode, level;
  std::uint32_t line = 0;
  std::vector<RecordItem> items;
};

// Reads the "[INFO] {…}" lines; other lines are ignored. A line that is not the JSON object
// FlagGems writes (truncated, a --query run's Python repr, garbage) is reported and skipped.
std::vector<RecordEntry> parse_record_log(std::string_view text, const std::string& file,
                                          std::vector<Diagnostic>& diags);

// Puts a run's record log together with its text log. The n-th entry of an op and dtype
// belongs to the n-th table of that op and dtype: where its rows agree with the table's
// (to the table's six decimals) they take the record's full-precision values; items past the
// end of a table cut off, and every item of an entry whose table the text log lacks, become
// rows of their own (source record; timer: the table's, else default_timer). An entry of an op
// the text log printed no table of, in a log that has tables and was not cut before it, is
// another session's (FlagGems prints each table before its record): it adds no row, and goes to
// foreign (file, line, and the op named). Returns whether rows were added.
bool merge_record(Rows& rows, const std::vector<TableInfo>& tables, const std::vector<RecordEntry>& entries,
                  std::string_view default_timer, TextStore& store, const std::string& record_file,
                  std::vector<Diagnostic>& diags, std::vector<Diagnostic>& foreign);

// Rows of a record log alone (a bare record log given to zl summary).
Rows record_rows(const std::vector<RecordEntry>& entries, TextStore& store);

} // namespace zl::results::parse
