#include "sweep/workers.hpp"

#include "exec/invocation.hpp"
#include "loader/fields.hpp"
#include "results/parse/marker_format.hpp"
#include "results/parse/marker_names.hpp"
#include "run/identity.hpp"
#include "sweep/shards.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/output.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

extern char** environ;

namespace zl::sweep {

namespace fs = boost::filesystem;

namespace {

namespace names = results::parse::marker_names;

// Inputs of `zl run` that would override what the sweep tells its workers.
const char* const k_worker_unset[] = {"REPLAY_FROM", "SHAPE_MODE",  "SHAPE_FILE",           "OP",        "OP_FILE",
                                      "TEST_NODE",   "BENCH_LEVEL", "PARALLEL_WARMUP_GPUS", "ZL_BACKEND"};

std::vector<std::string> worker_environment()
{
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    if (std::find(std::begin(k_worker_unset), std::end(k_worker_unset), name) == std::end(k_worker_unset)) {
      env.push_back(entry);
    }
  }
  return env;
}

std::mutex g_out;

void say(std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields)
{
  const std::lock_guard<std::mutex> lock(g_out);
  util::out().result(results::parse::marker_line(name, fields) + "\n");
}

} // namespace

Sweep::Sweep(Request request, std::string out, shapes::Resolution resolution, std::vector<loader::Device> devices,
             std::string backend, std::string started)
  : m_request(std::move(request)), m_out(std::move(out)), m_resolution(std::move(resolution)),
    m_devices(std::move(devices)), m_backend(std::move(backend)), m_started(std::move(started))
{}

std::vector<std::string> Sweep::argv_for(const Worker& w) const
{
  const auto& r = m_request;
  run::Request worker;
  worker.flaggems_dir = r.flaggems_dir;
  worker.op = r.op;
  worker.level = r.level;
  worker.record_autotune = true;
  worker.isolate_tuner_cache = true;
  // by UUID (stable across enumerations), by index where a backend has none
  worker.device = w.device.uuid.empty() ? std::to_string(w.device.index) : w.device.uuid;
  worker.out_dir = w.run_dir;
  worker.python = r.python;
  worker.shape_file = w.shape_file.empty() ? r.shape_file : w.shape_file;
  worker.dtypes = r.dtypes;
  worker.timer = r.timer; // empty: the worker's default
  // The running binary, so a worker is this zl and goes through the same run code.
  return exec::run_argv(exec::this_zl(m_backend, r.backend_paths), worker);
}

void Sweep::run_workers(std::vector<Worker>& workers) const
{
  const auto env = worker_environment();
  std::vector<std::thread> threads;
  for (auto& w : workers) {
    say(names::k_sweep_worker_start, {{"worker", w.label},
                                      {"device", std::to_string(w.device.index)},
                                      {"uuid", w.device.uuid},
                                      {"shapes", w.shapes ? std::to_string(w.shapes) : "all"},
                                      {"run_dir", w.run_dir},
                                      {"log", w.log}});
    threads.emplace_back([this, &w, &env] {
      util::SpawnSpec spec;
      spec.argv = argv_for(w);
      spec.env = env;
      spec.parent_death_signal = SIGTERM; // if zl sweep dies, zl run still ends pytest's tree
      std::FILE* log = std::fopen(w.log.c_str(), "w");
      auto sink = [log](std::string_view chunk) {
        if (log != nullptr) {
          std::fwrite(chunk.data(), 1, chunk.size(), log);
          std::fflush(log);
        }
      };
      if (log != nullptr) {
        std::fprintf(log, "# %s\n", util::join(spec.argv, " ").c_str());
      }
      const auto start = std::chrono::steady_clock::now();
      try {
        w.exit_code = util::run(spec, sink, sink).exit_code;
      } catch (const util::SpawnFailure& e) {
        w.exit_code = 127;
        w.error = e.message;
      }
      w.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (w.exit_code == 0 && !fs::is_regular_file(w.run_dir + "/autotune_records/manifest.json")) {
        w.exit_code = 1;
        w.error = "the worker wrote no autotune_records/manifest.json";
      }
      if (log != nullptr) {
        std::fclose(log);
      }
      say(names::k_sweep_worker_end, {{"worker", w.label},
                                      {"rc", std::to_string(w.exit_code)},
                                      {"wall_s", fmt::format("{:.1f}", w.wall_s)},
                                      {"error", w.error}});
    });
  }
  for (auto& t : threads) {
    t.join();
  }
}

std::string Sweep::sharded()
{
  m_mode = "sharded";
  const auto root = shapes::load_shape_file(m_resolution.shape_file);
  const auto plan = plan_shards(m_resolution, m_devices.size());
  util::make_dirs(m_out + "/shapes");
  for (const auto& shard : plan) {
    Worker w;
    w.label = fmt::format("shard-{}", shard.index);
    w.device = m_devices[shard.index];
    w.run_dir = fmt::format("{}/{}", m_out, w.label);
    w.log = fmt::format("{}/logs/{}.log", m_out, w.label);
    w.shape_file = fmt::format("{}/shapes/{}.yaml", m_out, w.label);
    w.shapes = shard.count();
    util::write_file_atomic(w.shape_file, shard_yaml(root, m_resolution, shard, plan.size()));
    m_shards.push_back(std::move(w));
  }
  run_workers(m_shards);
  bool failed = false;
  for (const auto& w : m_shards) {
    if (w.exit_code != 0) {
      failed = true;
      say(names::k_sweep_shard_failed, {{"worker", w.label},
                                        {"device", std::to_string(w.device.index)},
                                        {"rc", std::to_string(w.exit_code)},
                                        {"run_dir", w.run_dir},
                                        {"log", w.log}});
      util::out().say(fmt::format("zl: sweep: {} on device {} exited {}{}; its run folder {} and log {} are kept\n",
                                  w.label, w.device.index, w.exit_code, w.error.empty() ? "" : " (" + w.error + ")",
                                  w.run_dir, w.log));
    }
  }
  if (failed) {
    util::out().say("zl: sweep: a shard that failed never tuned its shapes, so the sharded result is discarded "
                    "whole; running the serial sweep instead\n");
    return "shard_failed";
  }
  std::vector<ShardRecords> records;
  for (size_t i = 0; i < m_shards.size(); ++i) {
    records.push_back({i, m_shards[i].device.uuid, m_shards[i].run_dir + "/autotune_records"});
  }
  auto merged = merge_records(records, sweep_json());
  if (!merged.conflicts.empty()) {
    m_conflicts = merged.conflicts;
    for (const auto& c : merged.conflicts) {
      say(names::k_sweep_merge_conflict, {{"kernel", c.kernel},
                                          {"key", c.key},
                                          {"shards", fmt::format("{},{}", c.first_shard, c.other_shard)},
                                          {"configs", c.first_config + " " + c.other_config}});
    }
    util::out().say("zl: sweep: shards settled one key on different configs (two shapes share the key), so the "
                    "winner would depend on the split; running the serial sweep instead\n");
    return "merge_conflict";
  }
  m_published = m_out + "/autotune_records";
  publish_files(merged.files, m_published);
  m_kernels = merged.kernels;
  m_keys = merged.keys;
  say(names::k_sweep_published, {{"mode", "sharded"},
                                 {"records", m_published},
                                 {"kernels", std::to_string(m_kernels)},
                                 {"keys", std::to_string(m_keys)},
                                 {"shards", std::to_string(m_shards.size())}});
  return "";
}

int Sweep::serial(const std::string& reason)
{
  m_mode = "serial";
  m_reason = reason;
  say(names::k_sweep_serial, {{"reason", reason}, {"device", std::to_string(m_devices.front().index)}});
  std::vector<Worker> one(1);
  one[0].label = "serial";
  one[0].device = m_devices.front();
  one[0].run_dir = m_out + "/serial";
  one[0].log = m_out + "/logs/serial.log";
  run_workers(one);
  m_serial = one[0];
  if (m_serial->exit_code != 0) {
    say(names::k_sweep_failed, {{"reason", "serial_failed"},
                                {"rc", std::to_string(m_serial->exit_code)},
                                {"run_dir", m_serial->run_dir},
                                {"log", m_serial->log}});
    util::out().say(fmt::format("zl: sweep: the serial sweep exited {}; nothing is published (see {} and {})\n",
                                m_serial->exit_code, m_serial->log, m_serial->run_dir));
    return k_sweep_failed;
  }
  m_published = m_out + "/autotune_records";
  publish_copy(m_serial->run_dir + "/autotune_records", m_published);
  say(names::k_sweep_published, {{"mode", "serial"}, {"reason", reason}, {"records", m_published}});
  return k_sweep_published;
}

std::string Sweep::sweep_json(std::optional<double> wall_s) const
{
  util::JsonWriter j;
  auto& w = j.w();
  using D = loader::DeviceField;
  auto worker = [&](const Worker& x) {
    w.StartObject();
    j.field("worker", x.label);
    loader::to_json(j, x.device, {{D::index, "device"}, D::uuid});
    j.field("shapes", static_cast<unsigned long long>(x.shapes));
    j.field("run_dir", x.run_dir);
    j.field("log", x.log);
    j.nullable("shape_file", x.shape_file);
    j.field("exit_code", x.exit_code);
    j.field("wall_s", x.wall_s);
    j.nullable("error", x.error);
    w.EndObject();
  };
  w.StartObject();
  j.field("schema", 1);
  j.field("op", m_request.op);
  j.field("level", m_request.level);
  j.field("backend", m_backend);
  j.nullable("devices_from", m_request.devices_from);
  j.key("devices");
  w.StartArray();
  for (const auto& d : m_devices) {
    w.StartObject();
    loader::to_json(j, d, {D::index, D::uuid, D::name});
    w.EndObject();
  }
  w.EndArray();
  j.field("started_at", m_started);
  j.field("mode", m_mode);
  j.nullable("serial_reason", m_reason);
  j.key("resolution");
  w.StartObject();
  j.field("module", m_resolution.module);
  j.field("shape_file", m_resolution.shape_file);
  j.field("complete", m_resolution.complete());
  j.strings("keys", m_resolution.keys());
  j.strings("tried", m_resolution.tried());
  j.strings("notes", m_resolution.notes);
  w.EndObject();
  j.key("shards");
  w.StartArray();
  std::for_each(m_shards.begin(), m_shards.end(), worker);
  w.EndArray();
  j.key("serial");
  m_serial ? worker(*m_serial) : static_cast<void>(w.Null());
  j.key("conflicts");
  w.StartArray();
  for (const auto& c : m_conflicts) {
    w.StartObject();
    j.field("kernel", c.kernel);
    j.field("key", c.key);
    j.field("shards", fmt::format("{},{}", c.first_shard, c.other_shard));
    w.EndObject();
  }
  w.EndArray();
  if (wall_s) { // the end of the sweep (the merge's copy is written before it)
    j.nullable("published", m_published);
    j.field("kernels", static_cast<unsigned long long>(m_kernels));
    j.field("keys", static_cast<unsigned long long>(m_keys));
    j.field("finished_at", run::utc_now());
    j.field("wall_s", *wall_s);
  }
  w.EndObject();
  return j.text();
}

void Sweep::write_report(double wall_s) const
{
  util::write_file_atomic(m_out + "/sweep.json", sweep_json(wall_s));
}

} // namespace zl::sweep
