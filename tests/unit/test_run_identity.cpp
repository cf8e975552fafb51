#include "run/identity.hpp"

#include "loader/module.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <zl/version.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>

using namespace zl;
using zl::test::add_test_module;
using zl::test::TempDir;

namespace {

// Sets a variable for the scope of a test, then puts back what was there.
class ScopedEnv
{
public:
  ScopedEnv(const char* name, const char* value) : m_name(name)
  {
    if (const char* old = std::getenv(name)) {
      m_old = old;
    }
    value != nullptr ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnv() { m_old ? ::setenv(m_name, m_old->c_str(), 1) : ::unsetenv(m_name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

} // namespace

TEST_CASE("zl::run::identity_json: read_identity reads back what the writer wrote")
{
  TempDir modules, flaggems, out;
  boost::filesystem::create_directories(flaggems / "benchmark");
  std::ofstream(flaggems / "benchmark/conftest.py") << "\n";
  std::ofstream(flaggems / "benchmark/core_shapes.yaml") << "abs: {shapes: [[4]]}\n";
  std::ofstream(flaggems / "benchmark/test_abs.py") << "@pytest.mark.abs\ndef test_abs():\n    pass\n";
  const auto gpu = loader::load_module(add_test_module(modules, "fakegpu"), "test");
  run::Request r;
  r.flaggems_dir = flaggems.path();
  r.op = "abs";
  r.python = "python3";
  r.out_dir = out / "run";
  r.device = "TEST-fakegpu-1";
  r.dtypes = {"float16"};
  r.extra_args = {"-x", "--count", "2"};
  const auto p = run::make_plan(r, gpu, "--backend");

  run::Outcome o;
  o.status = "ok";
  o.started_at = "2026-12-02T08:44:00Z";
  o.duration_s = 3.25;
  o.record_log = "record.log";
  o.executor.name = "warm";
  const std::string versions = R"({"torch": "2.5.1", "triton": null, "version_sources": {"torch": "module"}})";

  SUBCASE("outside Slurm")
  {
    const ScopedEnv job("SLURM_JOB_ID", nullptr);
    const auto id = run::parse_identity(run::identity_json(p, o, versions, "abc123"), "written");
    CHECK(id.zl_version == k_version);
    CHECK_FALSE(id.zl_binary.empty());
    CHECK(id.status == "ok");
    CHECK(id.started_at == "2026-12-02T08:44:00Z");
    CHECK(id.duration_s == 3.25);
    CHECK(id.backend.name == "fakegpu");
    CHECK(id.backend.module == gpu.path);
    CHECK(id.device.index == p.device.index);
    CHECK(id.device.uuid == p.device.uuid);
    CHECK(id.device.name == p.device.name);
    CHECK(id.timer.effective == p.timer);
    CHECK(id.timer.requested == p.request.timer);
    CHECK(id.level == p.request.level);
    CHECK(id.mode == p.request.mode);
    CHECK(id.dtypes == std::vector<std::string>{"float16"});
    CHECK(id.tuner_cache == p.tuner_cache.mode);
    CHECK(id.op == "abs");
    CHECK(id.flaggems_dir == flaggems.path());
    CHECK(id.flaggems_commit == "abc123");
    CHECK(id.versions == std::vector<std::pair<std::string, std::string>>{{"torch", "2.5.1"}});
    CHECK(id.pytest_extra_args == std::vector<std::string>{"-x", "--count", "2"});
    CHECK(id.executor == "warm");
    CHECK_FALSE(id.slurm.has_value());
    CHECK(id.record_log == "record.log");
  }
  SUBCASE("a Slurm task: its job, as Slurm named it")
  {
    const ScopedEnv job("SLURM_JOB_ID", "101"), array("SLURM_ARRAY_JOB_ID", "100"), task("SLURM_ARRAY_TASK_ID", "7"),
        node("SLURMD_NODENAME", nullptr);
    const auto id = run::parse_identity(run::identity_json(p, o, "", ""), "written");
    REQUIRE(id.slurm.has_value());
    CHECK(id.slurm->job_id == "101");
    CHECK(id.slurm->array_job_id == "100");
    CHECK(id.slurm->array_task_id == "7");
    CHECK(id.slurm->node.empty()); // written null
    CHECK(id.versions.empty());
    CHECK(id.flaggems_commit.empty());
  }
}
