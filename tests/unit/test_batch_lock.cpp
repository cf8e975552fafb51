#include "batch/lock.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace zl;

TEST_CASE("zl::batch lock file: pid, host, start and running groups round-trip; junk is ignored")
{
  batch::LockInfo info{1234, "node-7", "2026-01-01T00:00:00Z", {4000, 4100}};
  const auto back = batch::parse_lock(batch::format_lock(info));
  CHECK(back.pid == 1234);
  CHECK(back.host == "node-7");
  CHECK(back.started == "2026-01-01T00:00:00Z");
  CHECK(back.running == std::vector<int>{4000, 4100});
  const auto junk = batch::parse_lock("pid=x\nrunning=1 -5 abc 99999999 77\nnoise\n");
  CHECK(junk.pid == 0);
  CHECK(junk.running == std::vector<int>{77}); // 1 is init, never a benchmark's group
  // Rewritten in place: a shorter record over a longer one, before the truncation, reads whole.
  auto longer = batch::format_lock({99, "node-7", "then", {5000, 5100, 5200, 5300}});
  const auto shorter = batch::format_lock({1234, "node-7", "now", {4000}});
  longer.replace(0, shorter.size(), shorter);
  CHECK(batch::parse_lock(longer).running == std::vector<int>{4000});
  CHECK(batch::parse_lock(longer).pid == 1234);
}

TEST_CASE("zl::batch::CampaignLock: one owner; the second is refused with the owner's pid and host")
{
  test::TempDir dir;
  {
    batch::CampaignLock first(dir.path(), false);
    const auto text = util::read_file(dir.path() + "/.zl-lock");
    CHECK(text.find("pid=" + std::to_string(::getpid())) != std::string::npos);
    CHECK(text.find("host=" + batch::host_name()) != std::string::npos);
    // flock belongs to the open file: a second open in the same process is another owner.
    try {
      batch::CampaignLock second(dir.path(), false);
      FAIL("a second lock was taken");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(e.exit_code() == k_exit_usage);
      CHECK(what.find("in use by zl pid " + std::to_string(::getpid())) != std::string::npos);
      CHECK(what.find(batch::host_name()) != std::string::npos);
    }
  }
  // Released with its owner; a clean owner leaves no running groups on record.
  batch::CampaignLock again(dir.path(), false);
  CHECK(batch::parse_lock(util::read_file(dir.path() + "/.zl-lock")).running.empty());
}

TEST_CASE("zl::batch::CampaignLock: running groups a dead owner left are checked for life")
{
  test::TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    if (::chdir(dir.path().c_str()) != 0) { // a benchmark works in its run folder
      ::_exit(1);
    }
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  REQUIRE(child > 0);
  ::setpgid(child, child);
  batch::LockInfo left{999999, batch::host_name(), "then", {child}};
  util::write_file_atomic(dir.path() + "/.zl-lock", batch::format_lock(left));
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1); // the child works in the campaign now
  ::close(ready[0]);
  ::close(ready[1]);
  CHECK(batch::live_groups({child}, dir.path()) == std::vector<int>{child});
  // The same group seen from another campaign is none of its business.
  CHECK(batch::live_groups({child}, "/elsewhere").empty());
  for (bool force : {false, true}) {
    try {
      batch::CampaignLock lock(dir.path(), force);
      FAIL("taken while the dead owner's group still runs");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("still run") != std::string::npos);
      CHECK(what.find("kill -- -" + std::to_string(child)) != std::string::npos);
    }
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(batch::live_groups({child}, dir.path()).empty());
  batch::CampaignLock lock(dir.path(), false);

  // Another host: zl cannot look, so only --force goes on.
  test::TempDir other;
  util::write_file_atomic(other.path() + "/.zl-lock", batch::format_lock({1, "elsewhere", "then", {4242}}));
  CHECK_THROWS_WITH_AS(batch::CampaignLock(other.path(), false), doctest::Contains("--resume --force"), Error);
  batch::CampaignLock forced(other.path(), true);
}

TEST_CASE("zl::batch::CampaignLock: a lock that is a link or cannot be created is refused with its path")
{
  test::TempDir dir;
  REQUIRE(::symlink((dir.path() + "/elsewhere").c_str(), (dir.path() + "/.zl-lock").c_str()) == 0);
  CHECK_THROWS_WITH_AS(batch::CampaignLock(dir.path(), false), doctest::Contains((dir.path() + "/.zl-lock").c_str()),
                       Error);
  CHECK_THROWS_WITH_AS(batch::CampaignLock("/proc/zl-no-such", false), doctest::Contains("/proc/zl-no-such"), Error);
}
