#include "batch/folder.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>

using namespace zl;

TEST_CASE("zl::batch::parse_timeout_per_op: finite seconds, at least 1")
{
  CHECK(batch::parse_timeout_per_op("1") == 1.0);
  CHECK(batch::parse_timeout_per_op("900") == 900.0);
  CHECK(batch::parse_timeout_per_op("2.5") == 2.5);
  for (const char* bad : {"0", "-1", "1e-300", "0.999", "nan", "NaN", "inf", "-inf", "1e999", "", "5s", "0x", "1,5"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_WITH_AS(batch::parse_timeout_per_op(bad), doctest::Contains("at least 1"), Error);
  }
}

TEST_CASE("zl::batch::check_out_path: control characters, files, run folders, nesting, foreign files")
{
  test::TempDir dir;
  const auto& d = dir.path();
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/a\nb", false), doctest::Contains("control character"), Error);
  util::write_file_atomic(d + "/file", "x");
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/file", false), doctest::Contains("is not a folder"), Error);
  util::make_dirs(d + "/run");
  util::write_file_atomic(d + "/run/run_identity.json", "{}");
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/run", true), doctest::Contains("is a run folder"), Error);
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/run/x/y", false), doctest::Contains("inside the run folder"), Error);
  util::make_dirs(d + "/camp");
  util::write_file_atomic(d + "/camp/ops_status.csv", "");
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/camp/inner", false), doctest::Contains("inside the campaign"),
                       Error);
  batch::check_out_path(d + "/camp", false); // a campaign itself: the lock decides, then "already holds"
  util::make_dirs(d + "/mine");
  util::write_file_atomic(d + "/mine/notes.txt", "x");
  CHECK_THROWS_WITH_AS(batch::check_out_path(d + "/mine", false), doctest::Contains("not a zl campaign"), Error);
  batch::check_out_path(d + "/new", false);
  CHECK_FALSE(boost::filesystem::exists(d + "/new")); // writes nothing
}

TEST_CASE("zl::batch::read_ops_file: only a regular file, comments and blank lines skipped")
{
  test::TempDir dir;
  const auto ops = dir.path() + "/ops.txt";
  util::write_file_atomic(ops, "abs  # first\n\nadd\n");
  CHECK(batch::read_ops_file(ops) == std::vector<std::string>{"abs", "add"});
  REQUIRE(::mkfifo((dir.path() + "/fifo").c_str(), 0644) == 0);
  CHECK_THROWS_WITH_AS(batch::read_ops_file(dir.path() + "/fifo"), doctest::Contains("not a regular file"), Error);
  CHECK_THROWS_WITH_AS(batch::read_ops_file(dir.path()), doctest::Contains("not a regular file"), Error);
  CHECK_THROWS_WITH_AS(batch::read_ops_file(dir.path() + "/none"), doctest::Contains("none"), Error);
}
