#include <zl/sdk/reason.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace zl;

TEST_CASE("zl::sdk::quote")
{
  CHECK(sdk::quote("GPU 0") == "'GPU 0'");
  const std::string quoted = sdk::quote(std::string(500, 'x'));
  CHECK(quoted == "'" + std::string(160, 'x') + "…'"); // one runaway line cannot fill a reason
  CHECK(sdk::quote_line(3, "bad") == "line 3 'bad'");
}

TEST_CASE("zl::sdk::first_line_quoted")
{
  CHECK(sdk::first_line_quoted("\n  \n  NVIDIA-SMI has failed  \nmore\n") == "'NVIDIA-SMI has failed'");
  CHECK(sdk::first_line_quoted(" \n\n").empty());
}

TEST_CASE("zl::sdk::join_notes")
{
  CHECK(sdk::join_notes({"a", "", "b"}) == "a; b");
  CHECK(sdk::join_notes({"", ""}).empty());
  CHECK(sdk::call_failed("nvmlInit_v2", 9) == "nvmlInit_v2 returned 9");
}
