#include "run/extra_args.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using Args = std::vector<std::string>;

namespace {

std::string refusal(const Args& args)
{
  try {
    zl::run::check_extra_args(args);
  } catch (const zl::Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("zl::run::check_extra_args leaves alone what does not change the caliber")
{
  for (const auto& args : {Args{}, Args{"-x"}, Args{"-sxv", "-q"}, Args{"--warmup", "5", "--iter=5"},
                           Args{"--tb", "short", "-r", "fE", "-rfE"}, Args{"-W", "ignore", "-Wignore::UserWarning"},
                           Args{"--metrics", "gbps", "--output", "x.json"}, Args{"-x", "--"}}) {
    const auto message = refusal(args);
    CHECK_MESSAGE(message.empty(), message);
  }
}

TEST_CASE("zl::run::check_extra_args refuses every spelling of what zl owns")
{
  const std::pair<Args, const char*> cases[] = {
      {{"--mode", "operator"}, "use zl's --mode"},
      {{"--mode=operator"}, "use zl's --mode"},
      {{"--level=core"}, "--level"},
      {{"--dtypes", "float16"}, "--dtypes"},
      {{"--shape_file=x"}, "--shape-file"},
      {{"-p", "no:zl_timing"}, "-p plugin list"},
      {{"-pno:zl_timing"}, "-p plugin list"},
      {{"-p=x"}, "-p plugin list"},
      {{"-m", "abs_"}, "--test-node"},
      {{"-xmabs_"}, "--test-node"},
      {{"-k", "x"}, "--test-node"},
      {{"-c", "x.ini"}, "--flaggems"},
      {{"-o", "a=b"}, "--flaggems"},
      {{"--override-ini", "a=b"}, "--flaggems"},
      {{"benchmark/test_mm.py"}, "another test path"},
      {{"--tb", "short", "benchmark/test_mm.py"}, "another test path"},
      {{"--unknown-option", "value"}, "--option=value"},
      {{"--", "x"}, "another test path"},
  };
  for (const auto& [args, text] : cases) {
    const auto message = refusal(args);
    const auto context = args.front() + ": " + message;
    CHECK_MESSAGE(message.find(text) != std::string::npos, context);
    CHECK(message.find("after --") != std::string::npos);
  }
}
