#include "results/parse/marker_format.hpp"

#include "results/parse/markers.hpp"

#include <doctest/doctest.h>

using namespace zl::results::parse;

TEST_CASE("zl::results::parse::marker_value")
{
  CHECK(marker_value("abs") == "abs");
  CHECK(marker_value("") == "");
  CHECK(marker_value("torch.float16") == "torch.float16");
  CHECK(marker_value("[torch.Size([64, 64])]") == R"("[torch.Size([64, 64])]")");
  CHECK(marker_value("a=b") == R"("a=b")");
  CHECK(marker_value(R"(say "hi")") == R"("say \"hi\"")");
  CHECK(marker_value("a\\b c") == R"("a\\b c")");
  CHECK(marker_value("one\ntwo\tthree\r") == R"("one\ntwo\tthree\r")");
  CHECK(marker_value(std::string("x \x01", 3)) == R"("x \u0001")");
  CHECK(marker_value("caf\xc3\xa9 au lait") == "\"caf\xc3\xa9 au lait\""); // UTF-8 kept
  CHECK(marker_value("caf\xc3\xa9") == "caf\xc3\xa9");                     // bare: no space, quote or '='
}

TEST_CASE("zl::results::parse::marker_line")
{
  CHECK(marker_line("ZL_RUN", {}) == "ZL_RUN");
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"op", "abs"}, {"shape", "[torch.Size([64, 64])]"}, {"reason", "a \"b\"\nc=d"}, {"found", ""}};
  const auto line = marker_line("BENCHMARK_DIRECT_NO_CUDAGRAPH", fields);
  CHECK(line == R"(BENCHMARK_DIRECT_NO_CUDAGRAPH op=abs shape="[torch.Size([64, 64])]" reason="a \"b\"\nc=d" found=)");

  SUBCASE("parse_marker reads back what marker_line writes")
  {
    const auto p = parse_marker(line);
    REQUIRE(p.marker);
    CHECK(p.error.empty());
    CHECK(p.marker->name == "BENCHMARK_DIRECT_NO_CUDAGRAPH");
    CHECK(p.marker->fields == fields);
  }
}
