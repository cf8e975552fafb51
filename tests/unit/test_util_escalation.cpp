#include "util/escalation.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>

using namespace zl::util;
using namespace std::chrono_literals;

namespace {

const auto t0 = Escalation::Clock::time_point() + 1000s; // any moment: no clock is read

} // namespace

TEST_CASE("zl::util::Escalation")
{
  SUBCASE("nothing is due before begin")
  {
    Escalation e(100ms);
    CHECK_FALSE(e.begun());
    CHECK(e.due(t0 + 1h) == 0);
    CHECK(e.stage(t0) == 0);
    CHECK_FALSE(e.next());
    CHECK_FALSE(e.killed());
  }
  SUBCASE("TERM at once, each signal once, KILL when the grace has passed since begin")
  {
    Escalation e(100ms);
    e.begin(t0);
    CHECK(e.begun());
    CHECK(e.next() == t0);
    CHECK(e.due(t0) == SIGTERM);
    CHECK(e.due(t0) == 0);
    CHECK(e.next() == t0 + 100ms);
    CHECK(e.due(t0 + 99ms) == 0);
    CHECK(e.stage(t0 + 99ms) == SIGTERM);
    CHECK_FALSE(e.killed());
    CHECK(e.due(t0 + 100ms) == SIGKILL);
    CHECK(e.killed());
    CHECK(e.due(t0 + 1h) == 0);
    CHECK_FALSE(e.next());
    CHECK(e.stage(t0 + 1h) == SIGKILL);
  }
  SUBCASE("both are handed out in order when the caller looks late")
  {
    Escalation e(100ms);
    e.begin(t0);
    CHECK(e.due(t0 + 1s) == SIGTERM);
    CHECK(e.due(t0 + 1s) == SIGKILL);
    CHECK(e.due(t0 + 1s) == 0);
  }
  SUBCASE("a forwarded signal goes first; a second begin changes nothing")
  {
    Escalation e(100ms);
    e.begin(t0, SIGINT);
    e.begin(t0 + 50ms, SIGHUP);
    CHECK(e.stage(t0) == SIGINT);
    CHECK(e.due(t0 + 50ms) == SIGINT);
    CHECK(e.due(t0 + 99ms) == 0);
    CHECK(e.due(t0 + 100ms) == SIGKILL);
  }
  SUBCASE("hurry: a second stop request makes KILL due at once")
  {
    Escalation e(10s);
    e.begin(t0);
    CHECK(e.due(t0) == SIGTERM);
    e.hurry(t0 + 1s);
    CHECK(e.next() == t0 + 1s);
    CHECK(e.stage(t0 + 1s) == SIGKILL);
    CHECK(e.due(t0 + 1s) == SIGKILL);
    CHECK(e.killed());
  }
  SUBCASE("hurry before begin begins: the first signal still comes first, then KILL")
  {
    Escalation e(10s);
    e.hurry(t0);
    CHECK(e.begun());
    CHECK(e.due(t0) == SIGTERM);
    CHECK(e.due(t0) == SIGKILL);
    CHECK(e.due(t0) == 0);
  }
  SUBCASE("hurry never delays a KILL already due")
  {
    Escalation e(100ms);
    e.begin(t0);
    e.hurry(t0 + 1s);
    CHECK(e.due(t0 + 200ms) == SIGTERM);
    CHECK(e.due(t0 + 200ms) == SIGKILL);
  }
  SUBCASE("a grace of 0 (zl already had to kill) kills right after the first signal")
  {
    Escalation e(0ms);
    e.begin(t0);
    CHECK(e.stage(t0) == SIGKILL);
    CHECK(e.due(t0) == SIGTERM);
    CHECK(e.next() == t0);
    CHECK(e.due(t0) == SIGKILL);
  }
  SUBCASE("a first SIGKILL is the last signal")
  {
    Escalation e(100ms);
    e.begin(t0, SIGKILL);
    CHECK(e.due(t0) == SIGKILL);
    CHECK(e.killed());
    CHECK(e.due(t0 + 1h) == 0);
    CHECK_FALSE(e.next());
  }
  SUBCASE("the grace is stop_grace() unless given")
  {
    CHECK(Escalation().grace() == stop_grace());
    CHECK(Escalation(3s).grace() == 3s);
    CHECK(outer_stop_grace() > 2 * stop_grace());
  }
}
