// The workers of one sweep: child `zl run` processes, one per device, their logs, and what
// the sweep publishes from them.
#pragma once

#include "loader/module.hpp"
#include "shapes/shape_resolver.hpp"
#include "sweep/merge.hpp"
#include "sweep/sweep.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::sweep {

struct Worker
{
  std::string label; // shard-<i> or serial
  loader::Device device;
  std::string run_dir;    // the worker's run folder (<out>/shard-<i>, <out>/serial)
  std::string log;        // its standard output and error (<out>/logs/<label>.log)
  std::string shape_file; // empty: the sweep's own (or FlagGems') shape file
  size_t shapes = 0;      // 0 for the serial worker: whatever its shape file holds
  int exit_code = -1;
  double wall_s = 0;
  std::string error; // why it could not be started
};

class Sweep
{
public:
  Sweep(Request request, std::string out, shapes::Resolution resolution, std::vector<loader::Device> devices,
        std::string backend, std::string started);

  // Shards, runs, merges and publishes. Returns "" when published, else why the serial sweep
  // must run instead (shard_failed, merge_conflict); the shard folders and logs stay.
  std::string sharded();

  // One worker over every shape on the first device; publishes its records.
  int serial(const std::string& reason);

  // sweep.json in the sweep folder: what was planned, run, discarded and published.
  void write_report(double wall_s) const;

private:
  void run_workers(std::vector<Worker>& workers) const;
  std::vector<std::string> argv_for(const Worker& w) const;
  std::string sweep_json(std::optional<double> wall_s = std::nullopt) const;

  Request m_request;
  std::string m_out;
  shapes::Resolution m_resolution;
  std::vector<loader::Device> m_devices;
  std::string m_backend;
  std::string m_started;
  std::vector<Worker> m_shards;
  std::optional<Worker> m_serial;
  std::string m_mode;   // sharded or serial
  std::string m_reason; // why serial
  std::vector<Conflict> m_conflicts;
  std::string m_published; // the records folder published, empty when none
  size_t m_kernels = 0;
  size_t m_keys = 0;
};

} // namespace zl::sweep
