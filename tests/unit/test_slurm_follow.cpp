// The Slurm follower's answers to stop signals (core/slurm/follow.cpp), which ask Slurm nothing:
// a first Ctrl-C only asks, a hangup stops following and leaves the array to its final step.
#include "slurm/follow.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <csignal>

using namespace zl;

namespace {

slurm::Submission submission()
{
  slurm::Submission sub;
  sub.array_id = "12";
  sub.final_id = "13";
  sub.tasks = 1;
  return sub;
}

} // namespace

TEST_CASE("zl::slurm::Follower: a first Ctrl-C only asks; nothing stops")
{
  zl::test::TempDir dir;
  slurm::Follower follower(dir.path(), submission(), {"abs"});
  CHECK(follower.slots() == 0);
  CHECK_FALSE(follower.stop_requested(SIGINT, 1));
  const auto note = follower.next(batch::Clock::now());
  REQUIRE(note);
  CHECK(note->kind == batch::Event::Kind::note);
  CHECK(note->text.find("Ctrl-C again within 10 s cancels the array (scancel 12)") != std::string::npos);
}

TEST_CASE("zl::slurm::Follower: a hangup stops following; the array goes on, and nothing is cancelled")
{
  zl::test::TempDir dir;
  slurm::Follower follower(dir.path(), submission(), {"abs"});
  CHECK(follower.stop_requested(SIGHUP, 1));
  const auto note = follower.next(batch::Clock::now());
  REQUIRE(note);
  CHECK(note->text.find("the array 12 goes on and its final step 13 records the campaign") != std::string::npos);
  const auto done = follower.next(batch::Clock::now());
  REQUIRE(done);
  CHECK(done->kind == batch::Event::Kind::done);
  CHECK_FALSE(done->rows); // the campaign's table is the final step's to write
  CHECK_FALSE(follower.recorded_here());
}
