#include "util/error.hpp"
#include "util/fs.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace zl;

namespace {

mode_t mode_of(const std::string& path)
{
  struct stat st
  {
  };
  ::stat(path.c_str(), &st);
  return st.st_mode & 07777;
}

} // namespace

TEST_CASE("zl::util::write_file_atomic gives the mode a plain creation would")
{
  test::TempDir dir;
  const auto old = ::umask(027);
  util::write_file_atomic(dir / "a.json", "{}");
  ::umask(022);
  util::write_file_atomic(dir / "b.json", "{}");
  ::umask(old);
  CHECK(mode_of(dir / "a.json") == 0640);
  CHECK(mode_of(dir / "b.json") == 0644);
  CHECK(util::read_file(dir / "a.json") == "{}");
  CHECK(std::distance(boost::filesystem::directory_iterator(dir.path()), boost::filesystem::directory_iterator()) == 2);
}

TEST_CASE("zl::util::read_file reads only small regular files")
{
  test::TempDir dir;
  util::write_file_atomic(dir / "f", "0123456789");
  CHECK(util::read_file(dir / "f") == "0123456789");
  CHECK(util::read_file(dir / "f", 10) == "0123456789");
  CHECK_THROWS_WITH_AS(util::read_file(dir / "f", 9), doctest::Contains("it is larger than 9 B"), Error);
  CHECK(util::read_head(dir / "f", 4) == "0123");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(util::read_file(dir / "fifo"), doctest::Contains("it is a FIFO, not a regular file"), Error);
  CHECK_THROWS_WITH_AS(util::read_file("/dev/zero"), doctest::Contains("it is a character device"), Error);
  CHECK_THROWS_WITH_AS(util::read_file(dir.path()), doctest::Contains("it is a folder"), Error);
  CHECK_THROWS_WITH_AS(util::read_file(dir / "none"), doctest::Contains("No such file or directory"), Error);
}

TEST_CASE("zl::util::resolve_inside keeps paths from documents in their folder")
{
  test::TempDir dir;
  util::make_dirs(dir / "run/sub");
  boost::filesystem::create_symlink("/etc", dir / "run/out");
  boost::filesystem::create_symlink("sub", dir / "run/in");
  const auto root = dir / "run";
  CHECK(util::resolve_inside(root, "record.log", "x") == root + "/record.log");
  CHECK(util::resolve_inside(root, "in/f", "x") == root + "/sub/f");
  CHECK(util::resolve_inside(root, root + "/sub/../f", "x") == root + "/f");
  CHECK_THROWS_WITH_AS(util::resolve_inside(root, "../run2/f", "the entry"), doctest::Contains("outside"), Error);
  CHECK_THROWS_WITH_AS(util::resolve_inside(root, "out/shadow", "the entry"),
                       doctest::Contains("leads to /etc/shadow, outside"), Error);
  CHECK_THROWS_AS(util::resolve_inside(root, "/etc/passwd", "x"), Error);
}

TEST_CASE("zl::util::absolute needs the working folder only for relative paths")
{
  CHECK(util::absolute("/a/./b/../c") == "/a/c");
  test::TempDir dir;
  util::make_dirs(dir / "gone");
  char here[4096];
  REQUIRE(::getcwd(here, sizeof(here)) != nullptr);
  REQUIRE(::chdir((dir / "gone").c_str()) == 0);
  ::rmdir((dir / "gone").c_str());
  CHECK(util::absolute("/x/y") == "/x/y");
  CHECK_THROWS_WITH_AS(util::absolute("rel"), doctest::Contains("the working folder is gone"), Error);
  REQUIRE(::chdir(here) == 0);
}
