#include "exec/worker.hpp"

#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <vector>

using namespace zl;

namespace {

// A worker's environment: PATH and the plugin folder, nothing of zl's.
std::vector<std::string> worker_env()
{
  return {"PATH=/usr/bin:/bin", std::string("PYTHONPATH=") + ZL_FIXTURE_DIR + "/../../python/zl_plugins",
          "PYTHONUNBUFFERED=1"};
}

std::string make_op(const std::string& name, const std::string& body)
{
  auto dir = (boost::filesystem::temp_directory_path() / boost::filesystem::unique_path("zl-worker-%%%%%%")).string() +
             "-" + name;
  util::make_dirs(dir);
  util::write_file_atomic(dir + "/test_it.py", body);
  return dir;
}

} // namespace

TEST_CASE("zl::exec::Worker")
{
  std::string out, err;
  const run::Sinks sinks{[&out](std::string_view c) { out.append(c); }, [&err](std::string_view c) { err.append(c); }};
  int spawned = 0;
  exec::Worker worker("/usr/bin/python3", worker_env(), {"json", "zl_no_such_module"}, "", sinks,
                      [&spawned](int pid) { spawned = pid; });
  CHECK(worker.pid() == spawned);
  REQUIRE(worker.failed_imports().size() == 1);
  CHECK(worker.failed_imports()[0].rfind("zl_no_such_module: ModuleNotFoundError", 0) == 0);
  const std::vector<std::string> args = {"test_it.py", "-q", "-s", "-p", "no:cacheprovider"};
  auto env = worker_env();
  env.push_back("OP_WORD=first");

  SUBCASE("runs op after op, each with its own environment, and counts them")
  {
    const auto dir = make_op("ok", "import os\n\ndef test_ok():\n    print('word=' + os.environ['OP_WORD'])\n");
    auto l = worker.run_op(args, env, dir, sinks, {});
    CHECK(l.result.exit_code == 0);
    CHECK(l.crash.empty());
    CHECK(l.executor.name == "warm");
    CHECK(l.executor.pid == spawned);
    CHECK(l.executor.ops_before == 0);
    CHECK(out.find("word=first") != std::string::npos);
    env.back() = "OP_WORD=second";
    l = worker.run_op(args, env, dir, sinks, {});
    CHECK(l.executor.ops_before == 1);
    CHECK(out.find("word=second") != std::string::npos);
    CHECK(worker.alive());
  }
  SUBCASE("an op that kills the worker is a crash with what it last printed")
  {
    const auto dir = make_op("crash", "import os, signal\n\ndef test_crash():\n    print('last words', flush=True)\n"
                                      "    os.kill(os.getpid(), signal.SIGSEGV)\n");
    const auto l = worker.run_op(args, env, dir, sinks, {});
    CHECK(l.result.term_signal == SIGSEGV);
    CHECK(l.crash.find("was killed by SIGSEGV") != std::string::npos);
    CHECK(l.crash.find("last words") != std::string::npos);
    CHECK_FALSE(worker.alive());
  }
  SUBCASE("what an op changes and the worker puts back is told; what it cannot, ends the worker's use")
  {
    const auto dir = make_op("state", "import logging, threading, time\n\n"
                                      "def test_state():\n"
                                      "    logging.getLogger('kept').addHandler(logging.FileHandler('x.log'))\n"
                                      "    threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n");
    const auto l = worker.run_op(args, env, dir, sinks, {});
    CHECK(l.result.exit_code == 0);
    INFO("restored: ", util::join(l.executor.restored, " | "), "; recycled: ", util::join(l.executor.recycled, " | "));
    REQUIRE_FALSE(l.executor.restored.empty());
    CHECK(l.executor.restored[0].find("logging") != std::string::npos);
    REQUIRE(l.executor.recycled.size() == 1);
    CHECK(l.executor.recycled[0].find("thread") != std::string::npos);
    CHECK_FALSE(worker.alive()); // no other op runs in it
  }
  SUBCASE("what an op leaves running is ended, the worker stays")
  {
    const auto dir = make_op("leave", "import subprocess\n\ndef test_leave():\n"
                                      "    subprocess.Popen(['sleep', '60'])\n");
    const auto l = worker.run_op(args, env, dir, sinks, {});
    CHECK(l.result.exit_code == 0);
    CHECK(l.result.leftovers == 1);
    CHECK(worker.alive());
  }
}
