// Splitting an op's resolved shapes across devices, and each shard's own shape file.
#pragma once

#include "shapes/shape_resolver.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

namespace zl::sweep {

struct Shard
{
  size_t index = 0;
  std::map<std::string, std::vector<size_t>> shapes; // resolved key -> indices into its shapes, in file order
  double cost = 0;                                   // the sum of the shapes' element products
  size_t count() const;
};

// The cost of one shape: the product of its numbers (a GEMM's B*M*N*K), at least 1, so the
// large shapes spread first.
double shape_cost(const YAML::Node& shape);

// Splits every shape of every resolved key across at most `devices` shards, largest first
// onto the least loaded (ties: the lower index), never leaving a shard empty. Deterministic.
std::vector<Shard> plan_shards(const shapes::Resolution& resolution, size_t devices);

// Shard `shard`'s shape file: the original file with each resolved key's shapes cut to the
// shard's part. Every other key stays whole in shard 0 and is emptied (shapes: []) elsewhere,
// so benchmarks that the op's marker also selects (mm's mm_self_transpose) run once, in shard
// 0, instead of being tuned again, device against device, in every shard.
std::string shard_yaml(const YAML::Node& root, const shapes::Resolution& resolution, const Shard& shard,
                       size_t shard_count);

} // namespace zl::sweep
