#include "results/parse/markers.hpp"

#include <doctest/doctest.h>

using namespace zl::results;
using namespace zl::results::parse;

TEST_CASE("zl::results::parse::parse_marker")
{
  SUBCASE("bare and JSON values")
  {
    const auto p = parse_marker(
        R"(BENCHMARK_DIRECT_NO_CUDAGRAPH op=abs dtype=torch.float16 shape="[torch.Size([64, 64])]" reason="a \"b\"\n\u00e9\ud83d\ude00" found=)");
    REQUIRE(p.marker);
    CHECK(p.error.empty());
    CHECK(p.marker->name == "BENCHMARK_DIRECT_NO_CUDAGRAPH");
    CHECK(p.marker->get("op") == "abs");
    CHECK(p.marker->get("shape") == "[torch.Size([64, 64])]");
    CHECK(p.marker->get("reason") == "a \"b\"\n\xc3\xa9\xf0\x9f\x98\x80");
    CHECK(p.marker->has("found"));
    CHECK(p.marker->get("found").empty());
    CHECK_FALSE(p.marker->has("missing"));
  }
  SUBCASE("a marker name zl does not know is still a marker")
  {
    const auto p = parse_marker("SOMETHING_NEW key=1");
    REQUIRE(p.marker);
    CHECK(p.marker->get("key") == "1");
  }
  SUBCASE("lines that are not markers")
  {
    for (const char* line :
         {"", "SUCCESS               0.001100", "FAILED benchmark/test_abs.py::test_abs - x", "ERROR: usage: pytest",
          "benchmark/test_abs.py .", "Operator: abs  Performance Test", "PASSED", "ZL-RUN x=1", "NAME Key=1"}) {
      const auto p = parse_marker(line);
      CHECK_MESSAGE(!p.marker, line);
      CHECK_MESSAGE(p.error.empty(), line);
    }
  }
  SUBCASE("a known marker with no fields")
  {
    const auto p = parse_marker("ZL_RUN");
    REQUIRE(p.marker);
    CHECK(p.marker->fields.empty());
  }
  SUBCASE("malformed known markers are errors")
  {
    CHECK(parse_marker(R"(ZL_TIMER op=abs reason="unterminated)").error ==
          "ZL_TIMER marker: the value of reason= is an unterminated or invalid JSON string");
    CHECK(parse_marker(R"(ZL_TIMER op="a"b)").error == "ZL_TIMER marker: expected ' key=value' at column 16");
    CHECK(parse_marker("ZL_TIMER garbage").error == "ZL_TIMER marker without key=value fields");
    CHECK(parse_marker(R"(ZL_TIMER op="\q")").error.find("invalid JSON string") != std::string::npos);
    CHECK(parse_marker(R"(ZL_TIMER op="\ud83d")").error.find("invalid JSON string") != std::string::npos);
    // an unknown name that does not parse is someone else's output
    CHECK_FALSE(parse_marker(R"(OTHER op="unterminated)").marker);
    CHECK(parse_marker(R"(OTHER op="unterminated)").error.empty());
  }
}

TEST_CASE("zl::results::parse::printable_excerpt")
{
  CHECK(printable_excerpt("plain text") == "plain text");
  CHECK(printable_excerpt(std::string("a\0b\x1b[31m", 8)) == "a\\x00b\\x1b[31m");
  CHECK(printable_excerpt("\xff\xfe ok") == "\\xff\\xfe ok");
  CHECK(printable_excerpt("\xc3\xa9t\xc3\xa9") == "\xc3\xa9t\xc3\xa9");
  CHECK(printable_excerpt("abcdefghij", 4) == "abcd…");
}
