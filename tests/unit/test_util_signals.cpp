#include "util/signals.hpp"

#include "util/error.hpp"
#include "util/process.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace zl::util;

namespace {

volatile std::sig_atomic_t g_seen = 0;
extern "C" void count_seen(int)
{
  g_seen = g_seen + 1;
}

// The handler of sig now.
void (*handler_of(int sig))(int)
{
  struct sigaction now = {};
  ::sigaction(sig, nullptr, &now);
  return now.sa_handler;
}

} // namespace

TEST_CASE("zl::util::SignalForwarding::count")
{
  struct sigaction mine = {}, before_int = {}, before_hup = {};
  mine.sa_handler = count_seen;
  sigemptyset(&mine.sa_mask);
  ::sigaction(SIGINT, &mine, &before_int);
  ::sigaction(SIGHUP, &mine, &before_hup);
  g_seen = 0;
  {
    SignalForwarding forwarding;
    CHECK(forwarding.count() == 0);
    CHECK(forwarding.signal() == 0);
    ::raise(SIGINT);
    ::raise(SIGINT);
    ::raise(SIGHUP);
    CHECK(forwarding.count(SIGINT) == 2);
    CHECK(forwarding.count(SIGHUP) == 1);
    CHECK(forwarding.count(SIGTERM) == 0);
    CHECK(forwarding.count(SIGUSR1) == 0);
    CHECK(forwarding.count() == 3);
    CHECK(forwarding.signal() == SIGHUP);
    CHECK(g_seen == 0); // caught by zl, not by the handler it replaced
    CHECK((handler_of(SIGPIPE) == SIG_IGN));
  }
  CHECK((handler_of(SIGINT) == count_seen));
  CHECK((handler_of(SIGHUP) == count_seen));
  ::raise(SIGINT);
  CHECK(g_seen == 1);
  {
    SignalForwarding again; // counts start anew
    CHECK(again.count(SIGINT) == 0);
    CHECK(again.count() == 0);
  }
  ::sigaction(SIGINT, &before_int, nullptr);
  ::sigaction(SIGHUP, &before_hup, nullptr);
}

TEST_CASE("zl::util::SignalForwarding: one at a time")
{
  const auto before = handler_of(SIGTERM);
  {
    SignalForwarding first;
    CHECK_THROWS_AS(SignalForwarding(), zl::Error);
    ::raise(SIGTERM); // the first one still catches
    CHECK(first.count(SIGTERM) == 1);
  }
  CHECK((handler_of(SIGTERM) == before));
  CHECK_NOTHROW(SignalForwarding());
}

TEST_CASE("zl::util::SignalForwarding::watch")
{
  SpawnSpec spec;
  spec.argv = {"sleep", "30"};
  spec.new_process_group = true;
  const auto child = start(spec);
  ::close(child.out_fd);
  ::close(child.err_fd);
  int status = 0;
  {
    SignalForwarding forwarding;
    forwarding.watch(child.pid);
    ::raise(SIGTERM); // passed on to the child's group by the handler itself
    CHECK(::waitpid(child.pid, &status, 0) == child.pid);
  }
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}
