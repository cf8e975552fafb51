#include "batch/caliber.hpp"
#include "exec/invocation.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>

using namespace zl;

namespace {

batch::Caliber base()
{
  batch::CaliberOptions o;
  o.backend = "cpu";
  o.flaggems_dir = "/fg";
  o.python = "python3";
  o.level = "core";
  return batch::resolve_caliber(o);
}

} // namespace

TEST_CASE("zl::batch::resolve_caliber: options, then zl run's variables, then the defaults")
{
  const auto c = base();
  CHECK(c.level == "core");
  CHECK(c.mode == "kernel");
  CHECK(c.timer == "auto");
  CHECK(c.dtypes.empty());
  batch::CaliberOptions o;
  o.flaggems_dir = "/fg";
  ::setenv("BENCH_LEVEL", "comprehensive", 1);
  ::setenv("SHAPE_MODE", "upstream", 1);
  ::setenv("SHAPE_FILE", "/s.yaml", 1);
  const auto from_env = batch::resolve_caliber(o);
  ::unsetenv("BENCH_LEVEL");
  ::unsetenv("SHAPE_MODE");
  ::unsetenv("SHAPE_FILE");
  CHECK(from_env.level == "comprehensive");
  CHECK(from_env.shape_mode_upstream);
  CHECK(from_env.shape_file.empty()); // SHAPE_MODE=upstream outranks SHAPE_FILE, as in zl run
  o.level = "huge";
  CHECK_THROWS_WITH_AS(batch::resolve_caliber(o), doctest::Contains("--level huge is not accepted"), Error);
}

TEST_CASE("zl::batch caliber: campaign.json round-trips; each difference is named with both values")
{
  auto c = base();
  c.dtypes = {"float16", "bfloat16"};
  c.shape_file = "/s.yaml";
  c.shape_file_sha256 = "abc";
  const auto back = batch::parse_caliber_json(batch::caliber_json(c), "campaign.json");
  CHECK(batch::caliber_differences(c, back).empty());
  auto other = c;
  other.level = "comprehensive";
  other.shape_file_sha256 = "def";
  const auto diffs = batch::caliber_differences(c, other);
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0] == "--level: the campaign has 'core', this command 'comprehensive'");
  CHECK(diffs[1].find("--shape-file content") == 0);
  CHECK_THROWS_WITH_AS(batch::parse_caliber_json("[]", "x/campaign.json"), doctest::Contains("x/campaign.json"), Error);
  // The options every op gets carry the whole caliber.
  const auto args = exec::run_argv({}, batch::base_request(c));
  CHECK(std::find(args.begin(), args.end(), "--level") != args.end());
  CHECK(std::find(args.begin(), args.end(), "float16,bfloat16") != args.end());
  CHECK(std::find(args.begin(), args.end(), "/s.yaml") != args.end());
}

TEST_CASE("zl::batch::legacy_differences: what ops_status.csv says, once per option")
{
  const auto now = base();
  batch::OpStatus a;
  a.op = "abs";
  a.backend = "cpu";
  a.level = "comprehensive";
  batch::OpStatus b = a;
  b.op = "add";
  const auto diffs = batch::legacy_differences({a, b}, "/nowhere", now);
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].find("--level: the campaign has 'comprehensive' (ops_status.csv, op abs)") == 0);
  batch::OpStatus pending;
  pending.op = "mm"; // never ran: says nothing
  CHECK(batch::legacy_differences({pending}, "/nowhere", now).empty());
}

TEST_CASE("zl::batch::legacy_differences: what each op's run_identity.json says; a damaged one says nothing")
{
  const auto now = base();
  test::TempDir campaign;
  boost::filesystem::create_directories(campaign / "abs");
  boost::filesystem::create_directories(campaign / "add");
  util::write_file_atomic(
      campaign / "abs/run_identity.json",
      R"({"level": "core", "mode": "operator", "timer": {"effective": "graph", "requested": "graph"},
                              "backend": {"name": "cpu"}, "flaggems_dir": "/fg", "dtypes": ["float16"]})");
  util::write_file_atomic(campaign / "add/run_identity.json", R"({"level": "comprehensive", "mode": 3})");
  batch::OpStatus abs, add;
  abs.op = "abs", add.op = "add";
  const auto where = campaign / "abs/run_identity.json";
  const std::vector<std::string> expected = {
      "--mode: the campaign has 'operator' (" + where + "), this command 'kernel'",
      "--timer: the campaign has 'graph' (" + where + "), this command 'auto'",
      "--dtypes: the campaign has 'float16' (" + where + "), this command (none)",
  };
  CHECK(batch::legacy_differences({add, abs}, campaign.path(), now) == expected);
}

TEST_CASE("zl::batch caliber: the executor is part of it; a campaign.json without one reads as process")
{
  auto warm = base();
  CHECK(warm.executor == "warm"); // the default (exec::default_executor)
  auto c = warm;
  c.executor = "process";
  const auto diffs = batch::caliber_differences(c, warm);
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0] == "--executor: the campaign has 'process', this command 'warm'");
  CHECK(batch::parse_caliber_json(batch::caliber_json(warm), "campaign.json").executor == "warm");
  CHECK(batch::parse_caliber_json(R"({"schema": 1, "caliber": {"level": "core"}})", "campaign.json").executor ==
        "process");
}
