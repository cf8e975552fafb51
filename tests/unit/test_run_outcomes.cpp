#include "run/outcomes.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

using namespace zl;

TEST_CASE("zl::run::read_outcomes: counts, distinct skip reasons and refused dtypes; absent is none")
{
  test::TempDir dir;
  CHECK_FALSE(run::read_outcomes(dir / "outcomes.json").has_value());
  util::write_file_atomic(dir / "outcomes.json", R"({"exit_status": 1, "counts": {}, "tests": [
    {"nodeid": "a", "outcome": "passed", "reason": null},
    {"nodeid": "b", "outcome": "unsupported", "reason": "dtype(s) torch.float16"},
    {"nodeid": "c", "outcome": "unsupported", "reason": "dtype(s) torch.float16"},
    {"nodeid": "d", "outcome": "skipped", "reason": "CUDA is not available"},
    {"nodeid": "e", "outcome": "skipped", "reason": "CUDA is not available"},
    {"nodeid": "f", "outcome": "failed", "reason": "AssertionError"},
    {"nodeid": "g", "outcome": "error", "reason": "setup: boom"},
    {"nodeid": "h"}]})");
  const auto t = run::read_outcomes(dir / "outcomes.json");
  REQUIRE(t.has_value());
  CHECK(t->passed == 1);
  CHECK(t->unsupported == 2);
  CHECK(t->skipped == 2);
  CHECK(t->failed == 1);
  CHECK(t->error == 1);
  CHECK(t->skip_reasons == std::vector<std::string>{"CUDA is not available"});
  CHECK(t->unsupported_dtypes == std::vector<std::string>{"torch.float16"});
}

TEST_CASE("zl::run::read_outcomes: a file that is not zl_identity's document is an error naming it")
{
  test::TempDir dir;
  const auto path = dir / "outcomes.json";
  for (const char* text : {"", "[]", "{\"tests\": 3}", "{\"counts\": {}}", "{\"tests\": [}"}) {
    util::write_file_atomic(path, text);
    CHECK_THROWS_WITH_AS(run::read_outcomes(path), doctest::Contains(path.c_str()), Error);
  }
}

TEST_CASE("zl::run::refine_status: refusals alone are unsupported, skips alone skipped, anything else as pytest")
{
  run::TestOutcomes refused;
  refused.unsupported = 1;
  CHECK(run::refine_status("failed", refused) == "unsupported");
  auto partly = refused;
  partly.passed = 2;
  CHECK(run::refine_status("failed", partly) == "ok");
  auto also_failed = refused;
  also_failed.failed = 1;
  CHECK(run::refine_status("failed", also_failed) == "failed");
  auto also_error = refused;
  also_error.error = 1;
  CHECK(run::refine_status("failed", also_error) == "failed");
  run::TestOutcomes skipped;
  skipped.skipped = 3;
  CHECK(run::refine_status("ok", skipped) == "skipped");
  auto some_passed = skipped;
  some_passed.passed = 1;
  CHECK(run::refine_status("ok", some_passed) == "ok");
  CHECK(run::refine_status("interrupted", refused) == "interrupted");
  CHECK(run::refine_status("ok", run::TestOutcomes{}) == "ok");
}
