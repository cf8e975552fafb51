#include "sweep/merge.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <map>

using namespace zl;
using zl::test::TempDir;

namespace {

// A records folder as zl_autotune writes it: one kernel file, entries {key: [k], config: {kwargs}}.
std::string records(const TempDir& dir, const std::string& name, const std::map<int, int>& key_to_block)
{
  auto folder = dir / name;
  util::make_dirs(folder);
  std::string entries;
  for (const auto& [key, block] : key_to_block) {
    entries += fmt::format(R"({}{{"key": [{}, "torch.float16"], "config": {{"kwargs": {{"BLOCK": {}}}, "num_warps": 4}},
      "origin": "tuned", "configs_benchmarked": 8}})",
                           entries.empty() ? "" : ",", key, block);
  }
  util::write_file_atomic(
      folder + "/pkg.mm_kernel.json",
      fmt::format(R"({{"schema": 1, "kernel": "pkg.mm_kernel", "key_fields": ["M"], "entries": [{}]}})", entries));
  util::write_file_atomic(folder + "/manifest.json",
                          R"({"schema": 1, "kernels": {"pkg.mm_kernel": {"file": "pkg.mm_kernel.json", "keys": 1}}})");
  return folder;
}

rapidjson::Document parse(const std::string& text)
{
  rapidjson::Document d;
  d.Parse(text.c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

} // namespace

TEST_CASE("zl::sweep::merge_records: the union of the shards, each entry naming its shard")
{
  TempDir dir;
  const auto merged = sweep::merge_records(
      {{0, "GPU-a", records(dir, "s0", {{16, 16}, {32, 32}})}, {1, "GPU-b", records(dir, "s1", {{64, 64}})}},
      R"({"op": "mm"})");
  CHECK(merged.conflicts.empty());
  CHECK(merged.kernels == 1);
  CHECK(merged.keys == 3);
  REQUIRE(merged.files.size() == 2);
  CHECK(merged.files[0].first == "pkg.mm_kernel.json");
  const auto kernel = parse(merged.files[0].second);
  CHECK(kernel["key_fields"][0] == "M");
  REQUIRE(kernel["entries"].Size() == 3);
  CHECK(kernel["entries"][2]["shard"].GetUint64() == 1);
  CHECK(merged.files[1].first == "manifest.json");
  const auto manifest = parse(merged.files[1].second);
  CHECK(manifest["kernels"]["pkg.mm_kernel"]["keys"].GetUint() == 3);
  CHECK(manifest["summary"]["configs_benchmarked"].GetInt64() == 24);
  CHECK(manifest["sweep"]["op"] == "mm");
}

TEST_CASE("zl::sweep::merge_records: one key settled on two configs is a conflict; agreeing twice is not")
{
  TempDir dir;
  const auto merged = sweep::merge_records(
      {{0, "a", records(dir, "s0", {{16, 16}, {32, 32}})}, {1, "b", records(dir, "s1", {{16, 16}, {32, 64}})}}, "{}");
  REQUIRE(merged.conflicts.size() == 1);
  CHECK(merged.conflicts[0].kernel == "pkg.mm_kernel");
  CHECK(merged.conflicts[0].key == R"([32,"torch.float16"])");
  CHECK(merged.conflicts[0].first_shard == 0);
  CHECK(merged.conflicts[0].other_shard == 1);
  CHECK(merged.conflicts[0].other_config.find("64") != std::string::npos);
}

TEST_CASE("zl::sweep::merge_records: a folder that is not a records folder is an error naming the file")
{
  TempDir dir;
  util::make_dirs(dir / "empty");
  CHECK_THROWS_AS(sweep::merge_records({{0, "a", dir / "empty"}}, "{}"), Error);
  const auto bad = records(dir, "bad", {{1, 1}});
  util::write_file_atomic(bad + "/pkg.mm_kernel.json", R"({"schema": 2})");
  CHECK_THROWS_WITH_AS(sweep::merge_records({{0, "a", bad}}, "{}"),
                       (bad + "/pkg.mm_kernel.json: schema must be 1 (written by another zl version?)").c_str(), Error);
}

TEST_CASE("zl::sweep::publish_files and publish_copy: all or nothing, never over an existing folder")
{
  TempDir dir;
  sweep::publish_files({{"a.json", "{}\n"}, {"manifest.json", "{}\n"}}, dir / "out");
  CHECK(util::read_file(dir / "out/a.json") == "{}\n");
  CHECK_THROWS_AS(sweep::publish_files({{"a.json", "{}"}}, dir / "out"), Error);
  sweep::publish_copy(dir / "out", dir / "copy");
  CHECK(util::read_file(dir / "copy/manifest.json") == "{}\n");
  CHECK(boost::filesystem::is_empty(dir.path() + "/copy/..") == false);
  for (const auto& e : boost::filesystem::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos); // no temporary folder left
  }
}

TEST_CASE("zl::sweep::merge_records: a number beyond a double in a shard is an error naming the file")
{
  // RapidJSON reads 11e308 as infinity (1e309 it refuses); its writer stopped there and the merged
  // file was cut short.
  TempDir dir;
  const auto folder = records(dir, "s0", {{16, 16}});
  auto text = util::read_file(folder + "/pkg.mm_kernel.json");
  text.replace(text.find("\"num_warps\": 4"), 14, "\"num_warps\": 11e308");
  util::write_file_atomic(folder + "/pkg.mm_kernel.json", text);
  try {
    sweep::merge_records({{0, "GPU-a", folder}}, "{}");
    FAIL("merge_records accepted 11e308");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(folder + "/pkg.mm_kernel.json holds a number beyond") != std::string::npos);
  }
}
