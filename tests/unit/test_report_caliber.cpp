#include "report/data.hpp"

#include "results_helpers.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

using namespace zl::report;
using zl::test::run_of;
using zl::test::table;

TEST_CASE("zl::report::shown")
{
  std::size_t cut = 0;
  CHECK(shown("abs", &cut) == "abs");
  CHECK(cut == 0);
  const std::string huge(std::size_t{10} << 20, 'x');
  const auto s = shown(huge, &cut);
  CHECK(cut == 1);
  CHECK(s.size() < k_label_max + 40);
  CHECK(s.find("(10485760 bytes)") != std::string::npos);
  // Never cut inside a UTF-8 sequence: the page's JSON must stay valid UTF-8.
  std::string accents;
  while (accents.size() < k_label_max + 10) {
    accents += "é";
  }
  const auto a = shown("x" + accents);
  CHECK(a.substr(0, k_label_max).find("é") != std::string::npos);
  CHECK((static_cast<unsigned char>(a[a.find("…") - 1]) & 0xC0) != 0xC0); // no lead byte left alone
}

TEST_CASE("zl::report::group_by_caliber")
{
  std::vector<zl::results::Run> runs;
  const auto log = table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.5}});
  runs.push_back(run_of(log));
  runs.push_back(run_of(log, {"cuda", "core", "direct", "kernel", "shared"}));
  runs.push_back(run_of(log));
  runs[0].info.device_name = "NVIDIA H200", runs[0].info.device_uuid = "GPU-1";
  runs[2].info.device_name = "NVIDIA H200", runs[2].info.device_uuid = "GPU-2";
  runs[0].info.identity_json =
      R"({"flaggems_commit":"abc123","versions":{"torch":"2.5.1"},"backend":{"version":"12.4"}})";
  const auto groups = group_by_caliber(runs);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].runs == std::vector<std::size_t>{0, 2});
  CHECK(groups[1].runs == std::vector<std::size_t>{1});
  CHECK(groups[0].key == "backend=cuda level=core timer=graph mode=kernel tuner_cache=shared executor=process");
  std::map<std::string, std::set<std::string>> fields(groups[0].fields.begin(), groups[0].fields.end());
  CHECK(fields["devices"] == std::set<std::string>{"NVIDIA H200 (GPU-1)", "NVIDIA H200 (GPU-2)"});
  CHECK(fields["FlagGems commit"] == std::set<std::string>{"abc123"});
  CHECK(fields["version of torch"] == std::set<std::string>{"2.5.1"});
  CHECK(fields["backend version"] == std::set<std::string>{"12.4"});
  CHECK(fields["zl version"] == std::set<std::string>{"unknown"});
  CHECK(fields.count("Slurm job") == 0); // not a Slurm run: no Slurm fields

  // The executor and pytest's extra arguments are part of the key, as they are of zl summary --ab's.
  runs[2].info.executor = "warm";
  CHECK(group_by_caliber(runs).size() == 3);
  CHECK(caliber_key(runs[2].info).find("executor=warm") != std::string::npos);

  Json j;
  write_caliber(j, groups[0]);
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  CHECK(d["runs"].GetUint() == 2);
  CHECK(std::string(d["fields"][0][0].GetString()) == "backend");
}

TEST_CASE("zl::report::group_by_caliber of Slurm tasks")
{
  std::vector<zl::results::Run> runs;
  const auto log = table("abs", "torch.float16", {{"[torch.Size([64])]", 1.0, 0.5}});
  for (const auto* task : {"0", "1", "2", "5", "7"}) {
    runs.push_back(run_of(log));
    runs.back().info.identity_json = std::string(R"({"slurm":{"job_id":"101","array_job_id":"100","array_task_id":")") +
                                     task + R"(","node":"gpu-)" + (task[0] < '5' ? "a" : "b") + R"("}})";
  }
  runs.push_back(run_of(log)); // a hand-written identity: nulls are none
  runs.back().info.identity_json = R"({"slurm":{"job_id":"7","array_task_id":null}})";
  // Identities with members of the wrong type are damaged: nothing of them is read, as zl summary
  // reads none of them (run::parse_identity).
  runs.push_back(run_of(log));
  runs.back().info.identity_json = R"({"slurm":{"job_id":8,"node":["x"]}})";
  runs.push_back(run_of(log));
  runs.back().info.identity_json = R"({"slurm":"yes","versions":[1],"backend":"cuda","flaggems_commit":3})";
  const auto groups = group_by_caliber(runs);
  REQUIRE(groups.size() == 1);
  std::map<std::string, std::set<std::string>> fields(groups[0].fields.begin(), groups[0].fields.end());
  CHECK(fields["Slurm job"] == std::set<std::string>{"100", "7"});
  CHECK(fields["Slurm array tasks"] == std::set<std::string>{"0-2, 5, 7 (5 tasks)"});
  CHECK(fields["Slurm node"] == std::set<std::string>{"gpu-a", "gpu-b"});
  CHECK(fields.count("FlagGems commit") == 0);
}
