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

TEST_CASE("zl::util::is_op_name: FlagGems' op names, capitals included, never a path")
{
  CHECK(is_op_name("abs"));
  CHECK(is_op_name("Concat")); // benchmark/test_Concat.py
  CHECK(is_op_name("amp_foreach_non_finite_check_and_unscale_"));
  CHECK_FALSE(is_op_name(""));
  CHECK_FALSE(is_op_name("../abs"));
  CHECK_FALSE(is_op_name("a-b"));
  CHECK_FALSE(is_op_name("a b"));
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

TEST_CASE("zl::util::printable escapes what a terminal would act on, and cuts")
{
  CHECK(printable("cuda") == "cuda");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x1b[31mred\n") == "\\x1b[31mred\\x0a");
  CHECK(printable("\xef\xbb\xbf"
                  "cpu") == "\\ufeffcpu");
  CHECK(printable("a\xe2\x80\xae"
                  "b") == "a\\u202eb");
  CHECK(printable("\xff\xc3") == "\\xff\\xc3");
  CHECK(printable("a\\b") == "a\\\\b");
  CHECK(printable(std::string(300, 'x'), 10) == std::string(10, 'x') + "\xe2\x80\xa6(290 more bytes)");
}
