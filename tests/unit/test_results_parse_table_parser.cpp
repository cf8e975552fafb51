#include "results/parse/table_lines.hpp"
#include "results/parse/table_parser.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>

using namespace zl::results;
using namespace zl::results::parse;

namespace {

// A fixture parsed the way zl parses a log; the text lives as long as the rows.
struct Parsed
{
  explicit Parsed(const std::string& name, std::string text_ = "")
    : file(name), text(text_.empty() ? zl::test::read_fixture("flaggems_output/" + name) : std::move(text_))
  {
    log = parse_text_log(text, file, store, diags);
  }
  std::string file;
  std::string text;
  TextStore store;
  std::vector<Diagnostic> diags;
  LogParse log;
};

} // namespace

TEST_CASE("zl::results::parse::parse_text_log: the TFLOPS table")
{
  Parsed p("tflops.log");
  CHECK(p.diags.empty());
  REQUIRE(p.log.tables.size() == 1);
  CHECK(p.log.tables[0].op == "abs");
  CHECK(p.log.tables[0].dtype == "torch.float16");
  CHECK(p.log.tables[0].mode == "kernel");
  CHECK(p.log.tables[0].level == "core");
  REQUIRE(p.log.rows.size() == 5);
  const auto& r = p.log.rows[0];
  CHECK(r.success);
  CHECK(r.torch_ms == doctest::Approx(0.0011));
  CHECK(r.gems_ms == doctest::Approx(0.001));
  CHECK(r.speedup == doctest::Approx(1.1));
  CHECK(r.tflops == doctest::Approx(1073.742));
  CHECK(std::isnan(r.torch_gbps));
  CHECK(r.shape == "[torch.Size([1073741824])]");
  CHECK(r.line == 5);
  CHECK(r.timer().empty()); // a plain FlagGems log says nothing of the timer
  CHECK(p.log.rows[4].shape == "[torch.Size([1024, 1024, 1024])]");
}

TEST_CASE("zl::results::parse::parse_text_log: BLAS prints a shape twice, the second is occurrence 1")
{
  Parsed p("blas_mm.log");
  CHECK(p.diags.empty());
  REQUIRE(p.log.rows.size() == 4);
  CHECK(p.log.rows[0].shape == "[torch.Size([384, 384]), torch.Size([384, 384])]");
  CHECK(p.log.rows[1].occurrence == 0);
  CHECK(p.log.rows[3].shape == p.log.rows[1].shape);
  CHECK(p.log.rows[3].occurrence == 1);
  CHECK(p.log.rows[2].occurrence == 0);
}

TEST_CASE("zl::results::parse::parse_text_log: no TFLOPS, Size Detail with kwargs")
{
  Parsed p("no_tflops_kwargs.log");
  CHECK(p.diags.empty());
  REQUIRE(p.log.rows.size() == 2);
  CHECK(p.log.rows[0].op() == "sum_dim_out");
  CHECK(p.log.rows[0].shape == "([torch.Size([1073741824]), 0], {'out': torch.Size([])})");
  CHECK(std::isnan(p.log.rows[0].tflops));
  CHECK(p.log.rows[1].speedup == doctest::Approx(1.105));
}

TEST_CASE("zl::results::parse::parse_text_log: GBPS columns")
{
  Parsed p("gbps.log");
  CHECK(p.diags.empty());
  REQUIRE(p.log.rows.size() == 2);
  CHECK(p.log.tables[0].level == "comprehensive");
  CHECK(p.log.rows[0].torch_gbps == doctest::Approx(419.4));
  CHECK(p.log.rows[0].gems_gbps == doctest::Approx(466.0));
  CHECK(std::isnan(p.log.rows[0].tflops));
}

TEST_CASE("zl::results::parse::parse_text_log: FAILED rows, N/A cells, shifted columns")
{
  Parsed p("failed_rows.log");
  CHECK(p.diags.empty());
  REQUIRE(p.log.rows.size() == 5);
  const auto& rows = p.log.rows;
  CHECK(rows[0].tflops == doctest::Approx(2.5));
  CHECK(rows[0].gems_gbps == doctest::Approx(12.5));
  // FAILED: three N/A cells, no TFLOPS cell although the header has one
  CHECK_FALSE(rows[1].success);
  CHECK(std::isnan(rows[1].torch_ms));
  CHECK(std::isnan(rows[1].tflops));
  CHECK(rows[1].shape == "[torch.Size([4096, 4096])]");
  // no TFLOPS cell, two GBPS cells
  CHECK(std::isnan(rows[2].tflops));
  CHECK(rows[2].torch_gbps == doctest::Approx(20.0));
  CHECK(rows[2].gems_gbps == doctest::Approx(40.0));
  // N/A latency: a SUCCESS row that cannot be compared
  CHECK(rows[3].success);
  CHECK_FALSE(rows[3].measured());
  CHECK(rows[3].tflops == doctest::Approx(1.5));
  // Size Detail printed as N/A
  CHECK(rows[4].shape == "N/A");
  CHECK(rows[4].tflops == doctest::Approx(3.0));
}

TEST_CASE("zl::results::parse::parse_text_log: failure lines and failed tests count once")
{
  Parsed p("failure_line.log");
  CHECK(p.diags.empty());
  std::vector<const Row*> failures;
  for (const auto& r : p.log.rows) {
    if (!r.success) {
      failures.push_back(&r);
    }
  }
  REQUIRE(p.log.rows.size() == 5);
  REQUIRE(failures.size() == 4);
  // The red line with literal braces: op known, dtype not.
  CHECK(failures[0]->op() == "gelu");
  CHECK(failures[0]->dtype().empty());
  CHECK(failures[0]->error() == "{e}");
  CHECK(failures[0]->source == RowSource::failure_line);
  CHECK(failures[0]->timer() == "graph");
  // An f-string line: the message spans two lines; the line numbers after it stay right.
  CHECK(failures[1]->op() == "tanh");
  CHECK(failures[1]->dtype() == "torch.float32");
  CHECK(failures[1]->error() == "CUDA out of memory.\nTried to allocate 2.00 GiB");
  // A test that left no row: pytest's summary line, op from its ZL_TIMER.
  CHECK(failures[2]->op() == "unique2");
  CHECK(failures[2]->source == RowSource::test_failure);
  CHECK(failures[2]->error() == "RuntimeError: device-side assert");
  CHECK(failures[2]->timer() == "direct");
  CHECK(failures[2]->line == 21);
  // No ZL_TIMER for it: the op is the function name minus test_ and the parameters.
  CHECK(failures[3]->op() == "other_op");
}

TEST_CASE("zl::results::parse::parse_text_log: markers give each row its timer")
{
  Parsed p("markers.log");
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].line == 19);
  CHECK(p.diags[0].reason.find("BENCHMARK_DIRECT_NO_CUDAGRAPH marker: the value of shape= is an unterminated") == 0);
  REQUIRE(p.log.rows.size() == 4);
  const auto& rows = p.log.rows;
  CHECK(rows[0].timer() == "graph");
  CHECK_FALSE(rows[0].fallback);
  // The refused capture matched op, dtype and Size Detail: that row was timed directly.
  CHECK(rows[1].timer() == "direct");
  CHECK(rows[1].fallback);
  CHECK(rows[2].op() == "rand");
  CHECK(rows[2].timer() == "direct"); // a ZL_TIMER of its own; its refused capture was unreadable
  CHECK_FALSE(rows[2].fallback);
  CHECK(rows[3].op() == "unique2"); // the poisoned test: one failure, from pytest's summary
  CHECK_FALSE(rows[3].success);
  CHECK(rows[3].timer() == "graph");
  REQUIRE(p.log.run_header == 0);
  std::map<std::string, int> names;
  for (const auto& m : p.log.markers) {
    ++names[m.name];
  }
  CHECK(names["ZL_TIMER"] == 3);
  CHECK(names["BENCHMARK_DIRECT_NO_CUDAGRAPH"] == 1);
  CHECK(names["BENCHMARK_CAPTURE_POISONED"] == 1);
  CHECK(names["AUTOTUNE_REPLAY_FALLBACK"] == 1);
  for (const auto& m : p.log.markers) {
    if (m.name == "BENCHMARK_DIRECT_NO_CUDAGRAPH") {
      CHECK(m.row == 1);
      CHECK(m.get("reason") == "operation not permitted when stream is capturing");
    }
    if (m.name == "BENCHMARK_CAPTURE_POISONED") {
      CHECK(m.row == 3); // the test's failure
      CHECK(m.op == "unique2");
    }
    if (m.name == "AUTOTUNE_REPLAY_FALLBACK") {
      CHECK(m.op == "dropout"); // from its test's ZL_TIMER
      CHECK(m.get("key") == "(64, 64)");
    }
  }
}

TEST_CASE("zl::results::parse::parse_text_log: truncated input is reported and the rest kept")
{
  Parsed row("truncated_row.log");
  CHECK(row.log.rows.size() == 3);
  REQUIRE(row.diags.size() == 1);
  CHECK(row.diags[0].file == "truncated_row.log");
  CHECK(row.diags[0].line == 8);
  CHECK(row.diags[0].reason.find("malformed row of the table abs torch.float16 (a Size Detail cut off") == 0);

  Parsed header("truncated_header.log");
  CHECK(header.log.rows.empty());
  REQUIRE(header.diags.size() == 1);
  CHECK(header.diags[0].line == 3);
  CHECK(header.diags[0].reason.find("table abs torch.float16: no column header") == 0);
}

TEST_CASE("zl::results::parse::parse_text_log: CRLF line ends read like LF")
{
  Parsed crlf("crlf.log");
  Parsed lf("blas_mm.log");
  CHECK(crlf.diags.empty());
  REQUIRE(crlf.log.rows.size() == lf.log.rows.size());
  for (std::size_t i = 0; i < lf.log.rows.size(); ++i) {
    CHECK(crlf.log.rows[i].shape == lf.log.rows[i].shape);
    CHECK(crlf.log.rows[i].gems_ms == lf.log.rows[i].gems_ms);
  }
}

TEST_CASE("zl::results::parse::parse_text_log: binary junk is reported with its line, never a crash")
{
  Parsed p("garbage.log");
  CHECK(p.log.rows.size() == 5);
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].line == 8);
  CHECK(p.diags[0].reason.find("not a row of the table abs torch.float16: \"") == 0);
  CHECK(p.diags[0].reason.find("\\x") != std::string::npos); // quoted safely
}

TEST_CASE("zl::results::parse::parse_text_log: edge cases")
{
  CHECK(Parsed("empty", " ").log.rows.empty());
  Parsed no_rows("t",
                 "Operator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)\n"
                 "Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup          Size Detail\n"
                 "-----------------------------------------------------------------------------------------------\n"
                 "\n");
  REQUIRE(no_rows.diags.size() == 1);
  CHECK(no_rows.diags[0].reason == "table abs torch.float16 has no rows");
  Parsed title("t", "Operator: abs  Performance Test (mode=kernel)\n");
  REQUIRE(title.diags.size() == 1);
  CHECK(title.diags[0].reason.find("table title without dtype=") == 0);
  Parsed unknown("t", "Operator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)\n"
                      "Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup              vs Base  "
                      "        Size Detail\n");
  REQUIRE(unknown.diags.size() == 1);
  CHECK(unknown.diags[0].reason.find("unknown column 'vs Base'") != std::string::npos);
  // A flood of garbage inside a table is capped.
  std::string flood = "Operator: a  Performance Test (dtype=d, mode=kernel,level=core)\n"
                      "Status   Torch Latency (ms)  Gems Latency (ms)  Gems Speedup  Size Detail\n----------\n";
  for (int i = 0; i < 500; ++i) {
    flood += "SUCCESS x\n";
  }
  Parsed capped("t", flood);
  REQUIRE(capped.diags.size() == 101); // 500 bad rows and "no rows"
  CHECK(capped.diags.back().reason == "401 more malformed lines not shown");
}

TEST_CASE("zl::results::parse::parse_text_log: FlagGems refusing a dtype is no failed row, cut or whole")
{
  // pytest 8's summary lines, cut at 80 columns as in a run.log, and whole (-vv).
  Parsed p("t", "FAILED benchmark/test_mm.py::test_mm - ValueError: Given dtype(s) 'torch.int3...\n"
                "FAILED benchmark/test_abs.py::test_perf_abs - ValueError: Given dtype(s) 'torch.float16'can't be "
                "supported by this op 'abs'\n"
                "FAILED benchmark/test_add.py::test_perf_add - ValueError: Given shapes are wrong\n");
  REQUIRE(p.log.rows.size() == 1);
  CHECK(p.log.rows[0].op() == "perf_add");
  CHECK(p.log.rows[0].source == RowSource::test_failure);
  CHECK(is_dtype_refusal("ValueError: Given dtype(s) 'torch.int32'can't be supported by this op 'mm'"));
  CHECK_FALSE(is_dtype_refusal("RuntimeError: Given dtype(s) 'x'"));
}

TEST_CASE("zl::results::parse::parse_text_log: FlagGems v3.0's title, mode named after the device")
{
  // Constructed after v3.0's BenchmarkResult.__str__ (docs/flaggems-releases.md, section 4): a
  // backward op's name holds a space and the mode is the device.
  Parsed p("v3.log", "Operator: gelu backward  Performance Test (dtype=torch.float16, mode=cuda,level=core)\n"
                     "Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup          Size Detail\n"
                     "-----------------------------------------------------------------------------------------\n"
                     "SUCCESS               0.010000            0.005000               2.000          "
                     "[torch.Size([1024])]\n");
  CHECK(p.diags.empty());
  REQUIRE(p.log.tables.size() == 1);
  CHECK(p.log.tables[0].op == "gelu backward");
  CHECK(p.log.tables[0].mode == "cuda");
  REQUIRE(p.log.rows.size() == 1);
  CHECK(p.log.rows[0].speedup == doctest::Approx(2.0));
}
