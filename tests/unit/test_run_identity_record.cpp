#include "run/identity_record.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <string>
#include <sys/stat.h>

using namespace zl;

namespace {

// An identity as zl run writes one, less what no reader reads.
constexpr const char* k_written = R"({
  "schema": 1,
  "zl_version": "0.4.0",
  "status": "ok",
  "exit_code": 0,
  "signal": null,
  "zl_binary": "/opt/zl/bin/zl",
  "started_at": "2026-12-02T08:44:00Z",
  "duration_s": 12.5,
  "backend": {"name": "cuda", "module": "/opt/zl/lib/libzl_backend_cuda.so", "abi": "1.2", "version": "12.4"},
  "device": {"index": 3, "uuid": "GPU-3", "name": "NVIDIA H200", "inherited_mask": null},
  "timer": {"effective": "graph", "requested": "auto"},
  "level": "core",
  "mode": "kernel",
  "dtypes": ["float16", "bfloat16"],
  "tuner_cache": {"mode": "isolated", "path": "/tmp/x"},
  "node": {"op": "abs", "node": "benchmark/test_unary.py"},
  "flaggems_dir": "/src/FlagGems",
  "flaggems_commit": null,
  "versions": {"torch": "2.5.1", "triton": null, "version_sources": {"torch": "module"}, "flag_gems": "3.0"},
  "pytest_extra_args": [],
  "executor": {"name": "warm", "pid": 42},
  "slurm": {"job_id": "101", "array_job_id": "100", "array_task_id": "7", "node": "gpu-a", "job_gpus": null},
  "record_log": "record.log",
  "a_key_from_the_future": [1, {"x": 2}]
})";

} // namespace

TEST_CASE("zl::run::parse_identity: every field readers use, typed")
{
  const auto id = run::parse_identity(k_written, "run/run_identity.json");
  CHECK(id.zl_version == "0.4.0");
  CHECK(id.status == "ok");
  CHECK(id.zl_binary == "/opt/zl/bin/zl");
  CHECK(id.started_at == "2026-12-02T08:44:00Z");
  CHECK(id.duration_s == 12.5);
  CHECK(id.backend.name == "cuda");
  CHECK(id.backend.module == "/opt/zl/lib/libzl_backend_cuda.so");
  CHECK(id.backend.version == "12.4");
  CHECK(id.device.index == 3);
  CHECK(id.device.uuid == "GPU-3");
  CHECK(id.device.name == "NVIDIA H200");
  CHECK(id.timer.effective == "graph");
  CHECK(id.timer.requested == "auto");
  CHECK(id.level == "core");
  CHECK(id.mode == "kernel");
  CHECK(id.dtypes == std::vector<std::string>{"float16", "bfloat16"});
  CHECK(id.tuner_cache == "isolated");
  CHECK(id.op == "abs");
  CHECK(id.flaggems_dir == "/src/FlagGems");
  CHECK(id.flaggems_commit.empty()); // null: none
  using Version = std::pair<std::string, std::string>;
  CHECK(id.versions == std::vector<Version>{{"torch", "2.5.1"}, {"flag_gems", "3.0"}});
  REQUIRE(id.pytest_extra_args.has_value());
  CHECK(id.pytest_extra_args->empty()); // recorded as none, not unknown
  CHECK(id.executor == "warm");
  REQUIRE(id.slurm.has_value());
  CHECK(id.slurm->job_id == "101");
  CHECK(id.slurm->array_job_id == "100");
  CHECK(id.slurm->array_task_id == "7");
  CHECK(id.slurm->node == "gpu-a");
  CHECK(id.record_log == "record.log");
}

TEST_CASE("zl::run::parse_identity: what an older or sparser identity leaves out is absent, not an error")
{
  const auto id = run::parse_identity(R"({"status": "failed", "slurm": null, "duration_s": null})", "x.json");
  CHECK(id.status == "failed");
  CHECK_FALSE(id.duration_s.has_value());
  CHECK_FALSE(id.device.index.has_value());
  CHECK_FALSE(id.dtypes.has_value());
  CHECK_FALSE(id.pytest_extra_args.has_value()); // predates the field: unknown
  CHECK_FALSE(id.slurm.has_value());
  CHECK(id.executor == "process"); // docs/plan-file.md: an identity without executor was a fresh process's
  CHECK(id.timer.effective.empty());
  CHECK(id.versions.empty());
}

TEST_CASE("zl::run::parse_identity: malformed JSON names the file, the line and the fix")
{
  const std::string file = "/runs/abs/run_identity.json";
  try {
    run::parse_identity("{\n  \"schema\": 1,\n  oops\n}", file);
    FAIL("malformed JSON was read");
  } catch (const run::IdentityError& e) {
    const std::string what = e.what();
    CHECK(what.find(file + " is not valid JSON (") == 0);
    CHECK(what.find("line 3") != std::string::npos);
    CHECK(what.find("restore it, or run the op again") != std::string::npos);
    CHECK(e.line() == 3);
    CHECK_FALSE(e.reason().empty());
    CHECK(e.reason().find(file) == std::string::npos); // for a diagnostic that names the file itself
  }
  for (const char* text : {"", "[]", "\"ok\"", "[[[[", "{\"status\": \"ok\"} trailing"}) {
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(run::parse_identity(text, file), doctest::Contains(file.c_str()), run::IdentityError);
    CHECK_FALSE(run::try_parse_identity(text).has_value());
  }
}

TEST_CASE("zl::run::parse_identity: a known key of the wrong type is an error naming the key")
{
  const std::string file = "/runs/abs/run_identity.json";
  const std::pair<const char*, const char*> cases[] = {
      {R"({"status": 1})", "status is a number, not a string"},
      {R"({"timer": {"effective": ["graph"]}})", "timer.effective is a list, not a string"},
      {R"({"timer": "graph"})", "timer is a string, not an object"},
      {R"({"backend": {"name": "cuda", "module": false}})", "backend.module is a boolean, not a string"},
      {R"({"duration_s": "12"})", "duration_s is a string, not a number"},
      {R"({"device": {"index": 1.5}})", "device.index is a number, not a whole number"},
      {R"({"dtypes": ["float16", 3]})", "dtypes[1] is a number, not a string"},
      {R"({"pytest_extra_args": "-x"})", "pytest_extra_args is a string, not a list of strings"},
      {R"({"versions": [1]})", "versions is a list, not an object"},
      {R"({"slurm": {"job_id": 7}})", "slurm.job_id is a number, not a string"},
      {R"({"executor": {"name": {}}})", "executor.name is an object, not a string"},
  };
  for (const auto& c : cases) {
    const std::string text = c.first, reason = c.second;
    CAPTURE(text);
    try {
      run::parse_identity(text, file);
      FAIL("a wrong type was read");
    } catch (const run::IdentityError& e) {
      CHECK(e.reason() == reason);
      CHECK(std::string(e.what()) == file + " is not a run identity: " + reason +
                                         "; it was damaged or edited after the run: restore it, or run the op again");
    }
    CHECK_FALSE(run::try_parse_identity(text).has_value());
  }
}

TEST_CASE("zl::run::read_identity")
{
  test::TempDir dir;
  SUBCASE("a run folder's identity")
  {
    util::write_file_atomic(dir / run::k_identity_file, k_written);
    CHECK(run::read_identity(dir.path()).timer.effective == "graph");
    CHECK(run::try_read_identity(dir.path())->level == "core");
  }
  SUBCASE("a folder without one: named, with what to give instead")
  {
    CHECK_THROWS_WITH_AS(run::read_identity(dir.path()),
                         (dir.path() + " holds no run_identity.json: it is not a run folder, or its run was stopped "
                                       "before zl wrote one; give a run folder that zl run or zl batch wrote")
                             .c_str(),
                         Error);
    CHECK_FALSE(run::try_read_identity(dir.path()).has_value());
  }
  SUBCASE("malformed or of the wrong type: the error names the file")
  {
    for (const char* text : {"{\"level\": ", "{\"level\": 2}"}) {
      util::write_file_atomic(dir / run::k_identity_file, text);
      CHECK_THROWS_WITH_AS(run::read_identity(dir.path()), doctest::Contains((dir / run::k_identity_file).c_str()),
                           run::IdentityError);
      CHECK_FALSE(run::try_read_identity(dir.path()).has_value());
    }
  }
  SUBCASE("not a regular file: refused unread, named")
  {
    REQUIRE(::mkfifo((dir / run::k_identity_file).c_str(), 0600) == 0);
    CHECK_THROWS_WITH_AS(run::read_identity(dir.path()),
                         doctest::Contains(("cannot read " + (dir / run::k_identity_file)).c_str()), Error);
    CHECK_FALSE(run::try_read_identity(dir.path()).has_value());
  }
}

TEST_CASE("zl::run::parse_identity: the device's settings from the telemetry summary")
{
  const auto id = run::parse_identity(
      R"({"telemetry": {"readings": 9, "clocks_locked": false, "locked_mhz": 0, "power_limit_w": 700.0,
          "ecc": true, "mig": null, "throttle_seen": []}})",
      "x.json");
  CHECK(id.device_state == "clocks_locked=no power_limit_w=700 ecc=on");
  CHECK(run::parse_identity(R"({"telemetry": {"readings": 3}})", "x.json").device_state.empty());
  CHECK(run::parse_identity(R"({"telemetry": null})", "x.json").device_state.empty());
  CHECK_THROWS_WITH_AS(run::parse_identity(R"({"telemetry": {"ecc": "on"}})", "x.json"),
                       doctest::Contains("telemetry.ecc is a string, not true or false"), run::IdentityError);
}
