#include "sweep/shards.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace zl;
using zl::test::fixture_path;

namespace {

shapes::Resolution mm()
{
  return shapes::resolve_shapes({fixture_path("shapes_flaggems"), "benchmark/test_mm.py", "mm", ""});
}

} // namespace

TEST_CASE("zl::sweep::plan_shards: largest first onto the least loaded, never an empty shard")
{
  const auto r = mm(); // BlasBenchmark: 2x384^3, 16x1024^3, 2x4096^3
  CHECK(sweep::shape_cost(YAML::Load("[2, 3, [4, 5]]")) == 120.0);
  CHECK(sweep::shape_cost(YAML::Load("[0, 'x']")) == 1.0);

  const auto two = sweep::plan_shards(r, 2);
  REQUIRE(two.size() == 2);
  CHECK(two[0].shapes.at("BlasBenchmark") == std::vector<size_t>{2});    // the largest alone
  CHECK(two[1].shapes.at("BlasBenchmark") == std::vector<size_t>{0, 1}); // in file order
  CHECK(two[1].count() == 2);

  const auto eight = sweep::plan_shards(r, 8);
  CHECK(eight.size() == 3); // one shape per shard at most, no idle worker
  std::set<size_t> all;
  for (const auto& s : eight) {
    all.insert(s.shapes.at("BlasBenchmark").begin(), s.shapes.at("BlasBenchmark").end());
  }
  CHECK(all == std::set<size_t>{0, 1, 2});
  CHECK(sweep::plan_shards(r, 2)[0].shapes == two[0].shapes); // deterministic
}

TEST_CASE("zl::sweep::shard_yaml: the op's key is cut; other keys run whole in shard 0 only")
{
  const auto r = mm();
  const auto root = shapes::load_shape_file(r.shape_file);
  const auto shards = sweep::plan_shards(r, 2);

  const auto first = YAML::Load(sweep::shard_yaml(root, r, shards[0], 2));
  CHECK(shapes::flow_text(first["BlasBenchmark"]["shapes"]) == "[[2, 4096, 4096, 4096]]");
  CHECK(first["BlasBenchmark"]["shape_desc"].as<std::string>() == "B, M, N, K");
  CHECK(first["mm_self_transpose"]["shapes"].size() == 2);
  CHECK(first["vdot"]["<<"]); // kept as written, merge key and all

  const auto text = sweep::shard_yaml(root, r, shards[1], 2);
  CHECK(text.rfind("# zl sweep: shard 1 of 2 for op mm; keys BlasBenchmark", 0) == 0);
  const auto second = YAML::Load(text);
  CHECK(shapes::flow_text(second["BlasBenchmark"]["shapes"]) == "[[2, 384, 384, 384], [16, 1024, 1024, 1024]]");
  CHECK(second["mm_self_transpose"]["shapes"].size() == 0);
  CHECK(second["Benchmark"]["shapes"].size() == 0);
  CHECK(second["vdot"]["shapes"].size() == 0); // an explicit empty list overrides the merged one
}
