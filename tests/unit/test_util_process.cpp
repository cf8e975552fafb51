#include "util/process.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace zl::util;

TEST_CASE("zl::util::run")
{
  std::string out, err;
  auto collect = [](std::string& s) { return [&s](std::string_view c) { s.append(c); }; };

  SUBCASE("captures both streams and the exit code; no shell is involved")
  {
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "echo out; echo err >&2; exit 7"};
    const auto r = run(spec, collect(out), collect(err));
    CHECK(r.exit_code == 7);
    CHECK(out == "out\n");
    CHECK(err == "err\n");
    spec.argv = {"echo", "$HOME", "a;b"};
    out.clear();
    run(spec, collect(out));
    CHECK(out == "$HOME a;b\n");
  }
  SUBCASE("a deadline kills the program")
  {
    SpawnSpec spec;
    spec.argv = {"sleep", "10"};
    spec.timeout = std::chrono::milliseconds(100);
    const auto r = run(spec, {});
    CHECK(r.timed_out);
    CHECK(r.term_signal == 9);
    CHECK(r.exit_code == 137);
  }
  SUBCASE("environment and working directory are the spec's")
  {
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "echo $ZL_X; pwd"};
    spec.env = std::vector<std::string>{"ZL_X=42", "PATH=/usr/bin:/bin"};
    spec.cwd = "/tmp";
    run(spec, collect(out));
    CHECK(out == "42\n/tmp\n");
  }
  SUBCASE("a missing program is a SpawnFailure")
  {
    SpawnSpec spec;
    spec.argv = {"zl-no-such-program"};
    CHECK_THROWS_AS(run(spec, {}), SpawnFailure);
    CHECK_FALSE(find_program("zl-no-such-program"));
    CHECK(find_program("sh"));
  }
}
