#include "util/process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

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
  SUBCASE("a deadline stops the program, SIGTERM first")
  {
    SpawnSpec spec;
    spec.argv = {"sleep", "10"};
    spec.timeout = std::chrono::milliseconds(100);
    const auto r = run(spec, {});
    CHECK(r.timed_out);
    CHECK(r.term_signal == SIGTERM);
    CHECK(r.exit_code == 128 + SIGTERM);
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
  SUBCASE("a directory that cannot be entered is a SpawnFailure, not a child's exit")
  {
    SpawnSpec spec;
    spec.argv = {"true"};
    spec.cwd = "/zl-no-such-folder";
    CHECK_THROWS_AS(run(spec, {}), SpawnFailure);
  }
  SUBCASE("a child reaped by someone else has no status, never a success")
  {
    SpawnSpec spec;
    spec.argv = {"true"};
    spec.on_spawn = [](int pid) {
      int status;
      ::waitpid(pid, &status, 0);
    };
    CHECK(run(spec, {}).exit_code == -1);
  }
  SUBCASE("the child gets /dev/null for input and default signal dispositions")
  {
    struct sigaction ignore = {}, old = {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old);
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "readlink /proc/self/fd/0; grep SigIgn /proc/self/status"};
    run(spec, collect(out));
    ::sigaction(SIGPIPE, &old, nullptr);
    CHECK(out == "/dev/null\nSigIgn:\t0000000000000000\n");
  }
}

TEST_CASE("zl::util::run stops a program in order: TERM to the group, grace, KILL")
{
  using namespace std::chrono_literals;
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  SUBCASE("a program that honours SIGTERM ends by it, without SIGKILL")
  {
    SpawnSpec spec;
    spec.argv = {"sleep", "30"};
    spec.new_process_group = true;
    spec.timeout = 100ms;
    spec.grace = 5000ms;
    const auto r = run(spec, {});
    CHECK(r.timed_out);
    CHECK(r.term_signal == SIGTERM);
    CHECK_FALSE(r.killed);
    CHECK(seconds() < 3);
  }
  SUBCASE("a program that ignores SIGTERM gets SIGKILL when the grace period ends")
  {
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "trap '' TERM INT; echo ready; while :; do sleep 0.1; done"};
    spec.new_process_group = true;
    spec.timeout = 200ms;
    spec.grace = 300ms;
    std::string out;
    const auto r = run(spec, [&](std::string_view c) { out.append(c); });
    CHECK(out == "ready\n");
    CHECK(r.timed_out);
    CHECK(r.killed);
    CHECK(r.term_signal == SIGKILL);
    CHECK(seconds() < 4);
  }
  SUBCASE("the program's exit ends the wait, though a leftover holds its output open")
  {
    SpawnSpec spec;
    spec.argv = {"sh", "-c", "trap '' TERM; sleep 30 & echo done"};
    spec.new_process_group = true;
    spec.grace = 200ms;
    std::string out;
    const auto r = run(spec, [&](std::string_view c) { out.append(c); });
    CHECK(r.exit_code == 0);
    CHECK(r.term_signal == 0);
    CHECK(out == "done\n");
    CHECK(r.leftovers == 1);
    CHECK(seconds() < 5);
  }
}

TEST_CASE("zl::util::signal_name")
{
  CHECK(signal_name(SIGSEGV) == "SIGSEGV");
  CHECK(signal_name(SIGKILL) == "SIGKILL");
  CHECK(signal_name(1000) == "signal 1000");
}

TEST_CASE("zl::util::start")
{
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  SpawnSpec spec;
  spec.argv = {"sh", "-c", "echo passed >&3; echo out"};
  const auto s = start(spec, {fds[1]});
  ::close(fds[1]);
  char buf[64] = {};
  CHECK(::read(fds[0], buf, sizeof buf - 1) == 7);
  CHECK(std::string(buf) == "passed\n");
  int status = 0;
  CHECK(::waitpid(s.pid, &status, 0) == s.pid);
  CHECK(WEXITSTATUS(status) == 0);
  std::string out(16, '\0');
  CHECK(::read(s.out_fd, out.data(), out.size()) == 4);
  ::close(fds[0]), ::close(s.out_fd), ::close(s.err_fd);
}
