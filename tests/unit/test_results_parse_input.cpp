#include "results/parse/input.hpp"

#include "fixture.hpp"
#include "results/parse/table_parser.hpp"
#include "results_helpers.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <vector>

using namespace zl::results;
using namespace zl::results::parse;
using zl::test::TempDir;

namespace {

std::vector<std::string> lines_of(LineReader& in)
{
  std::vector<std::string> out;
  for (std::string_view line; in.next(line);) {
    out.emplace_back(line);
  }
  return out;
}

// Texts whose lines end in every way a log's do.
const std::vector<std::string> k_texts = {
    "",
    "\n",
    "one",
    "one\n",
    "one\ntwo\n\nfour",
    "crlf\r\ncrlf\r\n\r\nlast\r",
    std::string(3000, 'x') + "\nshort\n" + std::string(5000, 'y'),
};

} // namespace

TEST_CASE("zl::results::parse::LineReader: a file cut into reads anywhere gives the lines the text gives")
{
  TempDir dir;
  for (const auto& text : k_texts) {
    zl::test::write_text(dir / "log", text);
    LineReader whole(text);
    const auto expected = lines_of(whole);
    for (const std::size_t chunk : {1UL, 2UL, 3UL, 7UL, 64UL, 4096UL, 1UL << 20}) {
      CAPTURE(chunk);
      std::vector<char> buffer;
      LineReader in(dir / "log", buffer, true, chunk);
      CHECK(in.size_hint() == text.size());
      CHECK(lines_of(in) == expected);
    }
  }
}

TEST_CASE("zl::results::parse::LineReader: its buffer is the longest line's, never the file's")
{
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += "SUCCESS    0.001000    0.001000    1.000          [torch.Size([" + std::to_string(i) + "])]\n";
  }
  zl::test::write_text(dir / "log", text);
  std::vector<char> buffer;
  LineReader in(dir / "log", buffer, true, 4096);
  CHECK(lines_of(in).size() == 20000);
  CHECK(text.size() > 1000000);
  CHECK(buffer.size() <= 8192);
}

TEST_CASE("zl::results::parse::LineReader: reading ahead for a message that spans lines")
{
  TempDir dir;
  const std::string text = "FAILED: err=<<<first\nsecond\nthird>>> tail\nafter\nnever >>\n";
  zl::test::write_text(dir / "log", text);
  for (const std::size_t chunk : {1UL, 5UL, 4096UL}) {
    CAPTURE(chunk);
    std::vector<char> buffer;
    LineReader in(dir / "log", buffer, true, chunk);
    std::string_view line;
    REQUIRE(in.next(line));
    CHECK(line == "FAILED: err=<<<first");
    const auto close = in.find_ahead(15, ">>>");
    REQUIRE(close != LineReader::npos);
    CHECK(in.raw(15, close) == "first\nsecond\nthird");
    CHECK(in.line_span() == 21);
    CHECK(in.skip_past_line_of(close) == 2); // "second" and "third … tail"
    REQUIRE(in.next(line));
    CHECK(line == "after");
    CHECK(in.find_ahead(0, ">>>") == LineReader::npos); // ">>" is not it: the input ends first
    REQUIRE(in.next(line));
    CHECK(line == "never >>");
    CHECK_FALSE(in.next(line));
  }
  SUBCASE("a message closed on a last line without a line end counts that line")
  {
    LineReader in(std::string_view("x <<<a\nb>>>"));
    std::string_view line;
    REQUIRE(in.next(line));
    const auto close = in.find_ahead(5, ">>>");
    CHECK(in.raw(5, close) == "a\nb");
    CHECK(in.skip_past_line_of(close) == 1);
    CHECK_FALSE(in.next(line));
  }
}

TEST_CASE("zl::results::parse::LineReader: what it cannot read is an Error naming the file")
{
  TempDir dir;
  std::vector<char> buffer;
  CHECK_THROWS_WITH_AS(LineReader(dir / "missing.log", buffer), doctest::Contains("missing.log"), zl::Error);
  CHECK_THROWS_WITH_AS(LineReader(dir.path(), buffer), doctest::Contains("not a regular file"), zl::Error);
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(LineReader(dir / "fifo", buffer, true), doctest::Contains("not a regular file"), zl::Error);
}

namespace {

bool same_value(double a, double b)
{
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

// What a row says, but for its occurrence (a streaming reader does not number them).
void check_same_row(const Row& a, const Row& b)
{
  CHECK(a.op() == b.op());
  CHECK(a.dtype() == b.dtype());
  CHECK(a.timer() == b.timer());
  CHECK(a.error() == b.error());
  CHECK(a.shape == b.shape);
  CHECK(a.line == b.line);
  CHECK(a.success == b.success);
  CHECK(a.fallback == b.fallback);
  CHECK(a.source == b.source);
  for (const auto& [x, y] : {std::pair{a.torch_ms, b.torch_ms},
                             {a.gems_ms, b.gems_ms},
                             {a.speedup, b.speedup},
                             {a.tflops, b.tflops},
                             {a.torch_gbps, b.torch_gbps},
                             {a.gems_gbps, b.gems_gbps}}) {
    CHECK(same_value(x, y));
  }
}

void check_same_diags(const std::vector<Diagnostic>& a, const std::vector<Diagnostic>& b)
{
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].line == b[i].line);
    CHECK(a[i].reason == b[i].reason);
  }
}

// Rows and markers as a streaming reader gets them, copied: the line they view goes.
struct Collect final : RowSink
{
  void row(const Row& r) override
  {
    rows.push_back(r);
    rows.back().shape = store.copy(r.shape);
  }
  void marker(const Marker& m) override { markers.push_back(m); }
  TextStore store;
  std::vector<Row> rows;
  std::vector<Marker> markers;
};

// Every fixture log, and texts that end in odd places.
std::vector<std::pair<std::string, std::string>> logs()
{
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* name :
       {"blas_mm.log", "crlf.log", "failed_rows.log", "failure_line.log", "garbage.log", "gbps.log", "markers.log",
        "no_tflops_kwargs.log", "tflops.log", "truncated_header.log", "truncated_row.log"}) {
    out.emplace_back(name, zl::test::read_fixture(std::string("flaggems_output/") + name));
  }
  const auto& failures = out[3].second;
  out.emplace_back("never closed", "\x1b[31mFAILED\x1b[0m: Operator=abs dtype=torch.float16 err=<<<boom\nnext line\n");
  out.emplace_back("closed on the last line", failures + "FAILED: Operator=abs dtype={dtype} err=<<<a\nb\nc>>>");
  out.emplace_back("the log repeated", out[6].second + out[6].second + out[0].second + out[6].second);
  return out;
}

} // namespace

TEST_CASE("zl::results::parse::parse_text_log: read line by line from a file, as from the text")
{
  zl::test::TempDir dir;
  for (const auto& log : logs()) {
    const auto& name = log.first;
    const auto& text = log.second;
    CAPTURE(name);
    zl::test::write_text(dir / "run.log", text);
    TextStore store;
    std::vector<Diagnostic> diags;
    const auto whole = parse_text_log(text, "run.log", store, diags);
    for (const std::size_t chunk : {1UL, 3UL, 17UL, 4096UL}) {
      CAPTURE(chunk);
      std::vector<char> buffer;
      LineReader in(dir / "run.log", buffer, true, chunk);
      TextStore s;
      std::vector<Diagnostic> d;
      const auto read = parse_text_log(in, "run.log", s, d);
      check_same_diags(diags, d);
      REQUIRE(read.rows.size() == whole.rows.size());
      for (std::size_t i = 0; i < whole.rows.size(); ++i) {
        check_same_row(whole.rows[i], read.rows[i]);
        CHECK(whole.rows[i].occurrence == read.rows[i].occurrence);
      }
      REQUIRE(read.markers.size() == whole.markers.size());
      for (std::size_t i = 0; i < whole.markers.size(); ++i) {
        CHECK(read.markers[i].fields == whole.markers[i].fields);
        CHECK(read.markers[i].row == whole.markers[i].row);
        CHECK(read.markers[i].op == whole.markers[i].op);
      }
      CHECK(read.tables.size() == whole.tables.size());
      CHECK(read.run_header == whole.run_header);
    }
  }
}

TEST_CASE("zl::results::parse::parse_text_log: with a sink, rows and markers are handed over and not kept")
{
  zl::test::TempDir dir;
  for (const auto& log : logs()) {
    const auto& name = log.first;
    const auto& text = log.second;
    CAPTURE(name);
    zl::test::write_text(dir / "run.log", text);
    TextStore store;
    std::vector<Diagnostic> diags;
    const auto whole = parse_text_log(text, "run.log", store, diags);
    std::vector<char> buffer;
    LineReader in(dir / "run.log", buffer, true, 7);
    Collect sink;
    TextStore s;
    std::vector<Diagnostic> d;
    const auto streamed = parse_text_log(in, "run.log", s, d, &sink);
    check_same_diags(diags, d);
    CHECK(streamed.rows.empty());
    CHECK(streamed.rows_read == whole.rows.size());
    REQUIRE(sink.rows.size() == whole.rows.size());
    for (std::size_t i = 0; i < whole.rows.size(); ++i) {
      check_same_row(whole.rows[i], sink.rows[i]);
    }
    CHECK(streamed.markers_read == whole.markers.size());
    REQUIRE(sink.markers.size() == whole.markers.size());
    for (std::size_t i = 0; i < whole.markers.size(); ++i) {
      CHECK(sink.markers[i].name == whole.markers[i].name);
      CHECK(sink.markers[i].op == whole.markers[i].op);
      CHECK(sink.markers[i].line == whole.markers[i].line);
    }
    // Of the markers, the run's header alone (the last ZL_RUN); of the tables, one a title.
    if (whole.run_header >= 0) {
      REQUIRE(streamed.markers.size() == 1);
      CHECK(streamed.run_header == 0);
      CHECK(streamed.markers[0].name == "ZL_RUN");
    } else {
      CHECK(streamed.markers.empty());
    }
    std::set<std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>> titles;
    for (const auto& t : whole.tables) {
      titles.emplace(t.op, t.dtype, t.mode, t.level);
    }
    CHECK(streamed.tables.size() == titles.size());
  }
}
