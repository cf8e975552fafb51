// zl sweep: tune an op's shapes, sharded across devices, and publish one autotune config set.
//
// Each shard is a child `zl run --record-autotune --isolate-tuner-cache` pinned to one device
// with its own shape file, so every worker goes through the same run code as any run. A set
// with holes is never published: --level comprehensive (shapes added in Python), shapes that
// cannot be resolved statically, a shard that exits non-zero, or shards that disagree on a
// key all fall back to the serial sweep, one run over all shapes, which costs wall time and
// never the caliber.
#pragma once

#include "loader/module.hpp"

#include <string>
#include <vector>

namespace zl::sweep {

struct Request
{
  std::string flaggems_dir;
  std::string flaggems_dir_from;
  std::string op;
  std::vector<std::string> devices; // indices or UUIDs; empty: every device of the backend
  std::string devices_from;         // "--devices", "PARALLEL_WARMUP_GPUS", or ""
  std::string level = "core";
  std::string shape_file; // empty: <flaggems>/benchmark/core_shapes.yaml
  std::vector<std::string> dtypes;
  std::string timer; // empty: the worker's default
  std::string python = "python3";
  std::string out_dir;
  bool resolve_only = false;
  // How a worker finds the same backend: its name and the --backend-path folders.
  std::string backend;
  std::vector<std::string> backend_paths;
};

// Exit codes besides zl's own 2 (usage) and 3 (preflight).
enum : int {
  k_sweep_published = 0,
  k_sweep_failed = 1, // nothing published: the serial sweep failed, or --resolve-only missed
};

// --resolve-only: prints the keys and shapes resolved; k_sweep_failed (and every candidate
// tried, on standard error) when a target has none. Needs no backend.
int resolve_only(const Request& request);

// Prints what it resolved, runs the sweep and returns one of the codes above. Throws zl::Error
// (exit 2) and run::PreflightError (exit 3).
int run(const Request& request, const loader::Module& backend);

} // namespace zl::sweep
