#include "run/plan.hpp"

#include "loader/module.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

using namespace zl;
using zl::test::add_test_module;
using zl::test::TempDir;

namespace {

// A FlagGems-shaped folder with one benchmark module.
void make_flaggems(const TempDir& dir)
{
  boost::filesystem::create_directories(dir / "benchmark");
  std::ofstream(dir / "benchmark/conftest.py") << "\n";
  std::ofstream(dir / "benchmark/core_shapes.yaml") << "abs: {shapes: [[4]]}\n";
  std::ofstream(dir / "benchmark/test_abs.py") << "@pytest.mark.abs\ndef test_abs():\n    pass\n";
}

bool has_env(const std::vector<std::string>& env, const std::string& entry)
{
  return std::find(env.begin(), env.end(), entry) != env.end();
}

} // namespace

TEST_CASE("zl::run::plan_plugins")
{
  TempDir dir;
  const auto gpu = loader::load_module(add_test_module(dir, "fakegpu"), "test");
  const auto host = loader::load_module(add_test_module(dir, "hostish"), "test");
  REQUIRE(gpu.state == loader::ModuleState::loaded);
  REQUIRE(host.state == loader::ModuleState::loaded);

  SUBCASE("compat plugins come first: they rewrite collection-time markers")
  {
    CHECK(run::plan_plugins(gpu, "graph") ==
          std::vector<std::string>{"zl_compat", "zl_device_setup", "zl_timing", "zl_capture", "zl_identity"});
  }
  SUBCASE("the autotune plugin after timing, before capture and identity, only to record or replay")
  {
    CHECK(run::plan_plugins(gpu, "graph", "record") == std::vector<std::string>{"zl_compat", "zl_device_setup",
                                                                                "zl_timing", "zl_autotune",
                                                                                "zl_capture", "zl_identity"});
    CHECK(run::plan_plugins(host, "direct", "replay") ==
          std::vector<std::string>{"zl_device_setup", "zl_timing", "zl_autotune", "zl_identity"});
    const auto off = run::plan_plugins(host, "direct", "off");
    CHECK(std::find(off.begin(), off.end(), "zl_autotune") == off.end());
  }
  SUBCASE("no capture plugin unless the timer is graph")
  {
    const auto direct = run::plan_plugins(gpu, "direct");
    CHECK(std::find(direct.begin(), direct.end(), "zl_capture") == direct.end());
  }
  SUBCASE("a backend without compat rules gets no compat plugin, and another's rules never reach it")
  {
    CHECK(run::plan_plugins(host, "direct") == std::vector<std::string>{"zl_device_setup", "zl_timing", "zl_identity"});
  }
}

TEST_CASE("zl::run::resolve_timer")
{
  TempDir dir;
  const auto gpu = loader::load_module(add_test_module(dir, "fakegpu"), "test");
  const auto host = loader::load_module(add_test_module(dir, "hostish"), "test");
  CHECK(run::resolve_timer("auto", gpu) == "graph");
  CHECK(run::resolve_timer("auto", host) == "direct");
  CHECK(run::resolve_timer("direct", gpu) == "direct");
  CHECK_THROWS_WITH_AS(run::resolve_timer("graph", host),
                       "--timer graph: backend hostish cannot capture device graphs; use --timer direct (or auto)",
                       Error);
  CHECK_THROWS_WITH_AS(run::resolve_timer("profiler", gpu),
                       "--timer profiler: backend fakegpu has no device profiler timing; use --timer direct (or auto)",
                       Error);
}

TEST_CASE("zl::run::make_plan")
{
  TempDir modules, flaggems, out;
  make_flaggems(flaggems);
  const auto gpu = loader::load_module(add_test_module(modules, "fakegpu"), "test");
  run::Request r;
  r.flaggems_dir = flaggems.path();
  r.op = "abs";
  r.python = "python3";
  r.out_dir = out / "run";
  r.device = "TEST-fakegpu-1";
  ::setenv("ZL_BACKEND", "fakegpu", 1);
  ::setenv("OP", "abs", 1);
  ::setenv("CUDA_HOME_FOR_TEST", "kept", 1);

  const auto p = run::make_plan(r, gpu, "--backend");
  CHECK(p.node.node == "benchmark/test_abs.py");
  CHECK(p.node.marker == "abs");
  CHECK(p.device.index == 1);
  CHECK(p.timer == "graph");
  CHECK(p.run_dir == out / "run");

  SUBCASE("pytest's environment pins the device and carries no zl input")
  {
    const auto env = run::child_environment(p);
    CHECK(has_env(env, "FAKE_VISIBLE_DEVICES=1"));
    CHECK(has_env(env, "ZL_PLAN=" + out / "run/plan.json"));
    CHECK(has_env(env, "CUDA_HOME_FOR_TEST=kept"));
    CHECK_FALSE(has_env(env, "ZL_BACKEND=fakegpu"));
    CHECK_FALSE(has_env(env, "OP=abs"));
  }
  SUBCASE("the argv is a plain session's: node, then FlagGems' options; zl's own go through PYTEST_ADDOPTS")
  {
    // The node through the run folder's link to the checkout's benchmark folder: a plain
    // session's node, however deep the checkout.
    const std::vector<std::string> argv = {
        "python3", "-m", "pytest", "benchmark/test_abs.py", "--level", "core", "--mode", "kernel", "--record", "log"};
    CHECK(p.node_link == out / "run/benchmark");
    CHECK(p.argv == argv);
    const std::vector<std::string> head = {"-s", "-p", "no:cacheprovider", "--rootdir=.", "--confcutdir=."};
    CHECK(std::equal(head.begin(), head.end(), p.pytest_options.begin()));
    CHECK(p.pytest_options.back() == "abs");
    CHECK(*(p.pytest_options.end() - 2) == "-m");
    const auto plugin = std::find(p.pytest_options.begin(), p.pytest_options.end(), "zl_timing");
    REQUIRE(plugin != p.pytest_options.end());
    CHECK(*(plugin - 1) == "-p");
    const auto env = run::child_environment(p);
    CHECK(has_env(env, "PYTEST_ADDOPTS=" + run::pytest_addopts(p.pytest_options)));
  }
  SUBCASE("the plan file carries this backend's rules and wording")
  {
    const auto json = run::plan_json(p);
    CHECK(json.find("\"benchmark/test_fake.py\"") != std::string::npos);
    CHECK(json.find("\"capture refused by test\"") != std::string::npos);
    CHECK(json.find("\"deny_ops\": [\n      \"unique2\"") != std::string::npos);
  }
  SUBCASE("an isolated tuner cache lives in the run folder")
  {
    r.isolate_tuner_cache = true;
    const auto iso = run::make_plan(r, gpu, "--backend");
    CHECK(iso.tuner_cache.mode == "isolated");
    CHECK(has_env(run::child_environment(iso), "FLAGGEMS_CACHE_DIR=" + out / "run/.tuner-cache"));
    CHECK(has_env(run::child_environment(iso), "TRITON_CACHE_DIR=" + out / "run/.triton-cache"));
  }
  SUBCASE("record and replay: the records folder in the run folder, the source a records folder")
  {
    r.record_autotune = true;
    const auto rec = run::make_plan(r, gpu, "--backend");
    CHECK(rec.autotune_mode == "record");
    CHECK(rec.autotune_records == out / "run/autotune_records");
    CHECK(run::plan_json(rec).find("\"records_dir\": \"" + out / "run/autotune_records\"") != std::string::npos);
    r.record_autotune = false;
    boost::filesystem::create_directories(out / "earlier/autotune_records");
    r.replay_from = out / "earlier";
    const auto rep = run::make_plan(r, gpu, "--backend");
    CHECK(rep.autotune_mode == "replay");
    CHECK(rep.autotune_source == out / "earlier/autotune_records");
    CHECK(std::find(rep.plugins.begin(), rep.plugins.end(), "zl_autotune") != rep.plugins.end());
    r.replay_from = out / "earlier/autotune_records";
    CHECK(run::make_plan(r, gpu, "--backend").autotune_source == out / "earlier/autotune_records");
  }
  SUBCASE("one backend's compat rules never reach another backend's run")
  {
    const auto host = loader::load_module(add_test_module(modules, "hostish"), "test");
    r.device.clear();
    const auto hp = run::make_plan(r, host, "--backend");
    const auto json = run::plan_json(hp);
    CHECK(json.find("benchmark/test_fake.py") == std::string::npos);
    CHECK(json.find("\"compat_rules\": []") != std::string::npos);
    CHECK(std::find(hp.plugins.begin(), hp.plugins.end(), "zl_compat") == hp.plugins.end());
  }
  SUBCASE("an unknown device is refused with what exists")
  {
    r.device = "7";
    CHECK_THROWS_WITH_AS(
        run::make_plan(r, gpu, "--backend"),
        "--device 7: backend fakegpu has no device with that index or UUID; it has 0 (TEST-fakegpu-0), "
        "1 (TEST-fakegpu-1)",
        Error);
  }
  ::unsetenv("ZL_BACKEND");
  ::unsetenv("OP");
  ::unsetenv("CUDA_HOME_FOR_TEST");
}

TEST_CASE("zl::run::record_log_name follows FlagGems' rule")
{
  CHECK(run::record_log_name({"benchmark/test_abs.py", "--level", "core", "--record", "log"}) ==
        "result_benchmark_test_abs--level_core--record_log.log");
  CHECK(run::record_log_name({"flaggems/benchmark/test_abs.py", "--rootdir", "flaggems", "--shape_file=shapes.yaml"}) ==
        "result_flaggems_benchmark_test_abs--rootdir_flaggems--shape_file_shapes.yaml.log");
}

TEST_CASE("zl::run::pytest_addopts: each option one word for pytest's shlex split")
{
  CHECK(run::pytest_addopts({"-s", "-c", "/it's here/pytest.ini", "-m", "abs", "", "$HOME"}) ==
        "-s -c '/it'\\''s here/pytest.ini' -m abs '' '$HOME'");
}
