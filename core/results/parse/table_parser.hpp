// FlagGems' text output (docs/flaggems-facts.md §1, §2): the per-operator tables, FlagGems' red
// FAILED line, pytest's FAILED summary lines, and zl's marker lines around them.
#pragma once

#include "results/model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace zl::results::parse {

// One table: its header and the rows it printed.
struct TableInfo
{
  std::string_view op, dtype, mode, level;
  std::uint32_t line = 0;      // of the "Operator:" title
  std::uint32_t first_row = 0; // index into LogParse::rows
  std::uint32_t end_row = 0;
};

struct LogParse
{
  Rows rows;
  std::vector<Marker> markers;
  std::vector<TableInfo> tables;
  std::int64_t run_header = -1; // index of the ZL_RUN marker, if any
  std::size_t rows_read = 0;    // rows and markers read, kept or handed to a sink
  std::size_t markers_read = 0;
};

class LineReader;

// Where a log's rows and markers go when its parser keeps none (a streaming summary): each as
// it is read. A row's Size Detail views the line being read (copy what must outlive the call),
// and its occurrence is not numbered.
class RowSink
{
public:
  virtual ~RowSink() = default;
  virtual void row(const Row& r) = 0;
  virtual void marker(const Marker& m) = 0;
};

// Parses a text log. The strings rows and tables keep are copied into store (a Size Detail, a
// table's op once), so text may go as soon as this returns: a campaign's logs are several
// times the size of what is kept. A malformed line of a table, marker or failure line is added
// to diags and skipped; anything else that is not FlagGems' (pytest's chatter) is ignored.
//
// A row's timer is the timer= of the last ZL_TIMER before its table (else ZL_RUN's), unless a
// BENCHMARK_DIRECT_NO_CUDAGRAPH of the same test names the table's op and dtype and the row's
// Size Detail: then it is "direct" and the row is marked as a fallback (docs/plan-file.md).
LogParse parse_text_log(std::string_view text, const std::string& file, TextStore& store,
                        std::vector<Diagnostic>& diags);
// The same, line by line from in. With a sink, rows and markers go to it as they are read and
// are not kept: markers keeps the last ZL_RUN alone (run_header), tables one table of each title
// (first_row and end_row then count the rows handed over), so that memory does not grow with
// the log's length.
LogParse parse_text_log(LineReader& in, const std::string& file, TextStore& store, std::vector<Diagnostic>& diags,
                        RowSink* sink = nullptr);

// Numbers the rows of one run: occurrence = how many earlier rows have the same op, dtype and
// Size Detail (BLAS prints some shapes twice; a parametrized test prints its table again).
void number_occurrences(Rows& rows);

} // namespace zl::results::parse
