#include "util/string.hpp"

#include <zl/sdk/text.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

using namespace zl;

namespace {

std::vector<std::string> strings(const std::vector<std::string_view>& pieces)
{
  return {pieces.begin(), pieces.end()};
}

} // namespace

TEST_CASE("zl::sdk::split")
{
  // Every piece, empty ones included: field counts stay exact.
  CHECK(strings(sdk::split("a,,b", ",")) == std::vector<std::string>{"a", "", "b"});
  CHECK(strings(sdk::split("a,", ",")) == std::vector<std::string>{"a", ""});
  CHECK(strings(sdk::split(",a", ",")) == std::vector<std::string>{"", "a"});
  CHECK(strings(sdk::split("", ",")) == std::vector<std::string>{""});
  CHECK(strings(sdk::split("a  b   c", "  ")) == std::vector<std::string>{"a", "b", " c"});
  // skip_empty drops them; "" is then no field at all.
  CHECK(strings(sdk::split("a,,b,", ",", true)) == std::vector<std::string>{"a", "b"});
  CHECK(sdk::split("", ",", true).empty());
  // An empty separator splits nothing (it used to loop for ever).
  CHECK(strings(sdk::split("a,b", "")) == std::vector<std::string>{"a,b"});
}

TEST_CASE("zl::sdk::split agrees with zl::util::split on empty fields")
{
  // The SDK's split and the core's split take empty fields the same way, in both modes; only the
  // defaults differ (the SDK keeps them, the core skips them).
  for (const char* text : {"", ",", ",,", "a", "a,", ",a", "a,,b", " , ", "a,b,c", ",a,,b,"}) {
    CAPTURE(text);
    CHECK(strings(sdk::split(text, ",")) == util::split(text, ',', false));
    CHECK(strings(sdk::split(text, ",", true)) == util::split(text, ',', true));
  }
}

TEST_CASE("zl::sdk::lines")
{
  CHECK(strings(sdk::lines("a\r\nb\n\nc\n")) == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(strings(sdk::lines("a")) == std::vector<std::string>{"a"});
  CHECK(sdk::lines("").empty());
  CHECK(strings(sdk::lines("\n")) == std::vector<std::string>{""});
}

TEST_CASE("zl::sdk::trim")
{
  CHECK(sdk::trim(" \t a b \r\n") == "a b");
  CHECK(sdk::trim(" \t\r\n").empty());
  CHECK(sdk::starts_with("GPU-1234", "GPU-"));
  CHECK_FALSE(sdk::starts_with("GP", "GPU-"));
}

TEST_CASE("zl::sdk::parse_u64")
{
  uint64_t v = 7;
  CHECK(sdk::parse_u64(" 81920 ", v));
  CHECK(v == 81920);
  CHECK(sdk::parse_u64("9999999999999999999", v));
  CHECK_FALSE(sdk::parse_u64("99999999999999999999", v)); // 20 digits could overflow
  CHECK_FALSE(sdk::parse_u64("", v));
  CHECK_FALSE(sdk::parse_u64("-1", v));
  CHECK_FALSE(sdk::parse_u64("12 MiB", v));
  CHECK(v == 9999999999999999999u); // untouched by a failed parse
}

TEST_CASE("zl::sdk::copy_field")
{
  char small[4] = {'x', 'x', 'x', 'x'};
  sdk::copy_field(small, "abcdef");
  CHECK(std::string(small) == "abc");
  sdk::copy_field(small, "");
  CHECK(std::string(small).empty());
}

TEST_CASE("zl::sdk::text_field")
{
  const char unterminated[4] = {' ', 'a', 'b', 'c'};
  CHECK(sdk::text_field(unterminated) == "abc");
  const char padded[8] = "ab  ";
  CHECK(sdk::text_field(padded) == "ab");
}
