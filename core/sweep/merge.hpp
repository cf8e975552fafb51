// Merging the autotune records of a sweep's shards into one set, and publishing a records
// folder atomically (docs/plan-file.md, "Autotune records").
#pragma once

#include <string>
#include <vector>

namespace zl::sweep {

struct ShardRecords
{
  size_t index = 0;
  std::string device;      // as given to the worker
  std::string records_dir; // <shard run folder>/autotune_records
};

// Two shards that settled one key of one kernel on different configs. Shards tune disjoint
// shapes, so this means two shapes share a key (a LibTuner strategy such as align32 rounds
// them together) and the winner depends on which shard got which shape: a serial sweep,
// where the first shape tunes the key, is the only honest answer.
struct Conflict
{
  std::string kernel;
  std::string key; // the key as compact JSON
  size_t first_shard = 0;
  size_t other_shard = 0;
  std::string first_config; // compact JSON of each config
  std::string other_config;
};

struct Merged
{
  std::vector<Conflict> conflicts;
  size_t kernels = 0;
  size_t keys = 0;
  std::vector<std::pair<std::string, std::string>> files; // file name -> content, manifest.json last
};

// Reads every shard's records folder and merges them. `sweep_json` (a JSON object) goes into
// the manifest as its "sweep" key. Throws zl::Error naming a file that cannot be read or is
// not a records file.
Merged merge_records(const std::vector<ShardRecords>& shards, const std::string& sweep_json);

// Writes files into `target` (which must not exist) through a temporary folder beside it and
// one rename: a reader sees the whole set or no folder. Throws zl::Error.
void publish_files(const std::vector<std::pair<std::string, std::string>>& files, const std::string& target);

// Publishes a copy of an existing records folder (the serial sweep's) the same way.
void publish_copy(const std::string& source_dir, const std::string& target);

} // namespace zl::sweep
