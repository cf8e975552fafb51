#include "util/string.hpp"

#include <doctest/doctest.h>

using namespace zl::util;

TEST_CASE("zl::util::split")
{
  CHECK(split("a:b::c", ':') == std::vector<std::string>{"a", "b", "c"});
  CHECK(split("a:b::c", ':', false) == std::vector<std::string>{"a", "b", "", "c"});
  CHECK(split("", ':').empty());
}

TEST_CASE("zl::util::is_identifier")
{
  CHECK(is_identifier("cuda"));
  CHECK(is_identifier("my_vendor2"));
  CHECK_FALSE(is_identifier(""));
  CHECK_FALSE(is_identifier("CUDA"));
  CHECK_FALSE(is_identifier("../cuda"));
  CHECK_FALSE(is_identifier("a-b"));
}

TEST_CASE("zl::util::edit_distance")
{
  CHECK(edit_distance("devices", "devices") == 0);
  CHECK(edit_distance("devics", "devices") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("zl::util::format_bytes")
{
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(80ULL << 30) == "80.0 GiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
}

TEST_CASE("zl::util::first_line")
{
  CHECK(first_line("\n  first  \nsecond") == "first");
  CHECK(first_line("") == "");
}
