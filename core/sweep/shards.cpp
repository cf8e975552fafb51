#include "sweep/shards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace zl::sweep {

namespace {

void multiply(const YAML::Node& node, double& product)
{
  if (node.IsSequence()) {
    for (const auto& child : node) {
      multiply(child, product);
    }
  } else if (node.IsScalar()) {
    try {
      product *= std::max(1.0, node.as<double>());
    } catch (const YAML::Exception&) { // a string in a shape: no weight of its own
    }
  }
}

const shapes::Target* target_of(const shapes::Resolution& r, const std::string& key)
{
  for (const auto& t : r.targets) {
    if (t.key == key) {
      return &t;
    }
  }
  return nullptr;
}

YAML::Node flow_sequence()
{
  YAML::Node seq(YAML::NodeType::Sequence);
  seq.SetStyle(YAML::EmitterStyle::Flow);
  return seq;
}

} // namespace

size_t Shard::count() const
{
  return std::accumulate(shapes.begin(), shapes.end(), size_t{0},
                         [](size_t n, const auto& kv) { return n + kv.second.size(); });
}

double shape_cost(const YAML::Node& shape)
{
  double product = 1;
  multiply(shape, product);
  return product;
}

std::vector<Shard> plan_shards(const shapes::Resolution& r, size_t devices)
{
  struct Item
  {
    std::string key;
    size_t index;
    double cost;
  };
  std::vector<Item> items;
  for (const auto& key : r.keys()) {
    const auto* t = target_of(r, key);
    const auto shapes = t->entry["shapes"];
    for (size_t i = 0; i < t->shapes.size(); ++i) {
      items.push_back({key, i, shape_cost(shapes[i])});
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.cost > b.cost; });
  std::vector<Shard> shards(std::min(devices, items.size()));
  for (size_t i = 0; i < shards.size(); ++i) {
    shards[i].index = i;
  }
  for (const auto& item : items) {
    auto least =
        std::min_element(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.cost < b.cost; });
    least->shapes[item.key].push_back(item.index);
    least->cost += item.cost;
  }
  for (auto& s : shards) {
    for (auto& kv : s.shapes) {
      std::sort(kv.second.begin(), kv.second.end());
    }
  }
  return shards;
}

std::string shard_yaml(const YAML::Node& root, const shapes::Resolution& r, const Shard& shard, size_t shard_count)
{
  YAML::Node out(YAML::NodeType::Map);
  const auto keys = r.keys();
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      YAML::Node entry = YAML::Clone(target_of(r, key)->entry);
      const YAML::Node all = entry["shapes"];
      YAML::Node part = flow_sequence();
      const auto it = shard.shapes.find(key);
      if (it != shard.shapes.end()) {
        for (const auto i : it->second) {
          YAML::Node shape = YAML::Clone(all[i]);
          shape.SetStyle(YAML::EmitterStyle::Flow);
          part.push_back(shape);
        }
      }
      entry["shapes"] = part;
      out[key] = entry;
    } else if (shard.index == 0 || !kv.second.IsMap()) {
      out[key] = YAML::Clone(kv.second);
    } else {
      YAML::Node entry = YAML::Clone(kv.second);
      entry["shapes"] = flow_sequence();
      out[key] = entry;
    }
  }
  YAML::Emitter e;
  e << out;
  return fmt::format("# zl sweep: shard {} of {} for op {}; keys {} cut to this shard's part{}\n{}\n", shard.index,
                     shard_count, r.op, fmt::join(keys, ", "),
                     shard.index == 0 ? "" : ", every other key emptied (it runs whole in shard 0)", e.c_str());
}

} // namespace zl::sweep
