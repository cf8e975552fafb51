#include "util/pump.hpp"

#include "util/process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <fcntl.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace zl::util;
using namespace std::chrono_literals;

namespace {

Sink collect(std::string& s)
{
  return [&s](std::string_view c) { s.append(c); };
}

} // namespace

TEST_CASE("zl::util::Pump")
{
  std::string out, err;

  SUBCASE("reads both streams of a child until their end, more than one read's worth")
  {
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "head -c 300000 /dev/zero; echo err >&2"};
    const auto child = start(spec);
    Pump pipes(child.out_fd, child.err_fd);
    pipes.drain(10s, collect(out), collect(err));
    CHECK_FALSE(pipes.open());
    CHECK(out.size() == 300000);
    CHECK(err == "err\n");
    int status = 0;
    CHECK(::waitpid(child.pid, &status, 0) == child.pid);
  }
  SUBCASE("tells when the caller's own descriptor is readable; an empty sink discards")
  {
    int fds[2], replies[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(replies, O_CLOEXEC) == 0);
    Pump pipes(fds[0], -1);
    CHECK_FALSE(pipes.pump(0ms, collect(out), {}, replies[0]));
    CHECK(::write(replies[1], "x", 1) == 1);
    CHECK(::write(fds[1], "out", 3) == 3);
    CHECK(pipes.pump(1s, collect(out), {}, replies[0]));
    CHECK(out == "out");
    ::close(fds[1]);
    pipes.pump(1s, {}, {});
    CHECK_FALSE(pipes.open());
    ::close(replies[0]);
    ::close(replies[1]);
  }
  SUBCASE("with nothing open it still waits, so that a caller can tick by it")
  {
    Pump pipes;
    const auto start = std::chrono::steady_clock::now();
    pipes.pump(60ms, {}, {});
    CHECK(std::chrono::steady_clock::now() - start >= 50ms);
  }
  SUBCASE("a drain ends at its limit while a leftover holds a pipe open")
  {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    Pump pipes(fds[0], -1);
    const auto start = std::chrono::steady_clock::now();
    pipes.drain(100ms, collect(out), {});
    CHECK(std::chrono::steady_clock::now() - start < 2s);
    CHECK(pipes.open());
    Pump moved(std::move(pipes));
    CHECK_FALSE(pipes.open()); // NOLINT(bugprone-use-after-move): moving leaves nothing behind
    CHECK(moved.open());
    ::close(fds[1]);
  }
}
