#include "results/compare/ab.hpp"
#include "results/parse/record_log.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace zl::results;
using namespace zl::results::parse;
using zl::results::compare::canonical_shape;

TEST_CASE("zl::results::parse::parse_record_log")
{
  std::vector<Diagnostic> diags, foreign;
  const auto entries = parse_record_log(zl::test::read_fixture("flaggems_output/record.log"), "record.log", diags);
  CHECK(diags.empty());
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].op == "abs");
  CHECK(entries[0].dtype == "torch.float16");
  CHECK(entries[0].mode == "kernel");
  CHECK(entries[0].level == "core");
  CHECK(entries[0].line == 2);
  REQUIRE(entries[0].items.size() == 5);
  CHECK(entries[0].items[0].shape == "[[1073741824]]");
  CHECK(entries[0].items[0].gems_ms == 0.00100049);
  CHECK(entries[0].items[0].tflops == 1073.7418240000002);
  CHECK(std::isnan(entries[0].items[0].gems_gbps));
  CHECK(entries[0].items[0].error.empty());
  // kwargs, spaced as json.dumps spaces them
  CHECK(entries[1].items[0].shape == R"([[[1073741824], 0], {"out": []}])");
}

TEST_CASE("zl::results::parse::parse_record_log: bad lines are reported with their line")
{
  std::vector<Diagnostic> diags, foreign;
  const auto entries = parse_record_log(zl::test::read_fixture("flaggems_output/record_bad.log"), "bad.log", diags);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].op == "neg");
  REQUIRE(entries[0].items.size() == 2);
  CHECK(entries[0].items[1].error == "boom");
  CHECK(std::isnan(entries[0].items[1].gems_ms));
  REQUIRE(diags.size() == 4);
  CHECK(diags[0].line == 2);
  CHECK(diags[0].reason.find("record log line is not JSON (") == 0);
  CHECK(diags[1].line == 3);
  CHECK(diags[1].reason.find("a --query run logs Python reprs") != std::string::npos);
  CHECK(diags[2].line == 4);
  CHECK(diags[3].line == 5);
  CHECK(diags[3].reason.find("record log entry without op_name and a result list") == 0);
}

TEST_CASE("zl::results::parse::merge_record")
{
  const auto text = zl::test::read_fixture("flaggems_output/tflops.log") +
                    zl::test::read_fixture("flaggems_output/no_tflops_kwargs.log");
  TextStore store;
  std::vector<Diagnostic> diags, foreign;
  auto log = parse_text_log(text, "run.log", store, diags);
  REQUIRE(log.rows.size() == 7);
  auto entries = parse_record_log(zl::test::read_fixture("flaggems_output/record.log"), "record.log", diags);

  SUBCASE("the record's full precision replaces the table's six decimals")
  {
    CHECK_FALSE(merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, foreign));
    CHECK(diags.empty());
    CHECK(log.rows[0].gems_ms == 0.00100049);
    CHECK(log.rows[0].torch_ms == 0.00110012);
    CHECK(log.rows[1].gems_ms == 0.00099951);
    CHECK(log.rows[0].shape == "[torch.Size([1073741824])]"); // the table's spelling stays
    CHECK(log.rows[0].source == RowSource::table);
  }
  SUBCASE("a record that disagrees with its table leaves the table alone")
  {
    entries[0].items[2].gems_ms = 0.5;
    merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, foreign);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].line == 2);
    CHECK(diags[0].reason == "record log entry abs torch.float16 disagrees with its table at row 3 (line 7): the "
                             "table's values are kept");
    CHECK(log.rows[0].gems_ms == 0.001);
  }
  SUBCASE("a record of a dtype whose table the run lost adds rows")
  {
    entries[1].op = "abs";
    entries[1].dtype = "torch.bfloat16";
    CHECK(merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, foreign));
    CHECK(diags.empty());
    REQUIRE(log.rows.size() == 9);
    CHECK(log.rows[7].op() == "abs");
    CHECK(log.rows[7].source == RowSource::record);
    CHECK(log.rows[7].timer() == "graph");
    CHECK(log.rows[7].line == 3);
  }
  SUBCASE("a record of an op the run printed no table of is foreign: named, not counted")
  {
    entries[1].op = "prod";
    CHECK_FALSE(merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, foreign));
    CHECK(log.rows.size() == 7);
    CHECK(diags.empty());
    REQUIRE(foreign.size() == 1);
    CHECK(foreign[0].file == "record.log");
    CHECK(foreign[0].line == 3);
    CHECK(foreign[0].reason.find("record log entry prod ") == 0);
    CHECK(foreign[0].reason.find("foreign") != std::string::npos);
  }
}

TEST_CASE("zl::results::parse::merge_record: a table cut off is completed from the record log")
{
  const auto text = zl::test::read_fixture("flaggems_output/truncated_row.log");
  TextStore store;
  std::vector<Diagnostic> diags, foreign;
  auto log = parse_text_log(text, "run.log", store, diags);
  REQUIRE(log.rows.size() == 3);
  diags.clear();
  const auto entries = parse_record_log(zl::test::read_fixture("flaggems_output/record.log"), "record.log", diags);
  CHECK(merge_record(log.rows, log.tables, entries, "graph", store, "record.log", diags, foreign));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].reason == "record log entry abs torch.float16 has 5 results, its table (line 2) 3 rows: the other 2 "
                           "are taken from the record log");
  REQUIRE(log.rows.size() == 7); // 3 + the 2 it lost + sum_dim_out's 2
  CHECK(log.rows[0].gems_ms == 0.00100049);
  CHECK(log.rows[3].shape == "[[64, 512, 512]]");
  CHECK(log.rows[3].source == RowSource::record);
  CHECK(log.rows[4].shape == "[[1024, 1024, 1024]]");
}

TEST_CASE("zl::results::compare::canonical_shape: a table's repr and the record's JSON agree")
{
  CHECK(canonical_shape("[torch.Size([64, 64])]") == "[[64,64]]");
  CHECK(canonical_shape("[[64, 64]]") == "[[64,64]]");
  CHECK(canonical_shape("([torch.Size([1073741824]), 0], {'out': torch.Size([])})") ==
        canonical_shape(R"([[[1073741824], 0], {"out": []}])"));
  CHECK(canonical_shape("[0.001, torch.Size([5])]") == "[0.001,[5]]");
  CHECK(canonical_shape("[torch.Size([8]), None, True, torch.float16, (3,)]") ==
        canonical_shape(R"([[8], null, true, "torch.float16", [3]])"));
}
