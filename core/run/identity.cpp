#include "run/identity.hpp"

#include "loader/fields.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <zl/version.hpp>

#include <cstdlib>

namespace zl::run {

std::string utc_now()
{
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::time(nullptr)));
}

std::string flaggems_commit(const std::string& flaggems_dir)
{
  namespace fs = boost::filesystem;
  // A checkout of its own: the folder is the top of the repository git finds. A FlagGems tree
  // copied into another project's checkout must not report that project's commit.
  if (util::find_program("git")) {
    util::SpawnSpec spec;
    spec.argv = {"git", "-C", flaggems_dir, "rev-parse", "--show-toplevel", "HEAD"};
    spec.timeout = std::chrono::seconds(10);
    std::string out;
    try {
      if (util::run(spec, [&](std::string_view s) { out.append(s); }).exit_code == 0) {
        const auto lines = util::split(out, '\n');
        boost::system::error_code ec;
        if (lines.size() == 2 && fs::equivalent(lines[0], flaggems_dir, ec)) {
          return std::string(util::trim(lines[1]));
        }
      }
    } catch (const util::SpawnFailure&) {
    }
  }
  // A bundle made from a checkout records its commit in FLAGGEMS_COMMIT.
  try {
    return util::first_line(util::read_head(flaggems_dir + "/FLAGGEMS_COMMIT", 4096));
  } catch (const Error&) {
    return {}; // absent, or not a regular file
  }
}

std::string identity_json(const Plan& p, const Outcome& o, const std::string& versions_json, const std::string& commit)
{
  namespace key = identity_key; // the keys read_identity reads back
  util::JsonWriter j;
  auto& w = j.w();
  w.StartObject();
  j.field("schema", 1);
  j.field(key::k_zl_version, k_version);
  j.field(key::k_status, o.status);
  j.nullable("exit_code", o.exit_code);
  j.nullable("pytest_exit_code", o.pytest_exit_code);
  j.nullable("signal", o.signal);
  j.nullable("error", o.error);
  j.strings("command", p.request.command_line);
  boost::system::error_code ec;
  j.field(key::k_zl_binary, boost::filesystem::read_symlink("/proc/self/exe", ec).string());
  j.field(key::k_started_at, o.started_at);
  j.nullable("finished_at", o.finished_at);
  j.nullable(key::k_duration_s, o.duration_s);
  const loader::Selection backend{p.backend, p.backend_how};
  using B = loader::BackendField;
  j.object(key::k_backend, [&] {
    loader::to_json(j, backend, {B::name, B::module, B::abi, B::version, B::selected_by});
  });
  j.object(key::k_device, [&] {
    using D = loader::DeviceField;
    loader::to_json(j, p.device, {D::index, D::uuid, D::name});
    loader::to_json(j, backend, {B::visibility_var});
    j.field("visibility_value", p.device.pin); // what zl set visibility_var to: "" where it sets none
    j.nullable("inherited_mask", p.backend->inherited_mask());
  });
  j.key(key::k_timer);
  w.StartObject();
  j.field(key::k_effective, p.timer);
  j.field(key::k_requested, p.request.timer);
  w.EndObject();
  j.field("timer_reason", p.timer_reason);
  j.key("sampling"); // how many samples each row got; the samples themselves: samples_file
  write_sampling(j, p.sampling);
  j.field("sampling_spec", to_string(p.sampling));
  j.field("samples_file", boost::filesystem::path(p.samples_file).filename().string());
  j.field("telemetry_spec", to_string(p.telemetry));
  j.field("telemetry_file", p.telemetry.enabled ? "telemetry.jsonl" : "");
  j.field(key::k_level, p.request.level);
  j.field(key::k_mode, p.request.mode);
  j.strings(key::k_dtypes, p.request.dtypes);
  j.key("autotune");
  w.StartObject();
  autotune_fields(j, p);
  if (o.autotune) {
    j.field("fallbacks", o.autotune->fallbacks);
    j.field("tuned_keys", o.autotune->tuned_keys);
    j.field("configs_benchmarked", o.autotune->configs_benchmarked);
    j.key("summary"); // the plugin's own count (pinned keys among them); null when it never finished
    if (o.autotune->summary.empty()) {
      w.Null();
    } else {
      w.StartObject();
      for (const auto& [k, v] : o.autotune->summary) {
        // marker values are text: counts become numbers, true/false booleans, empty null
        const bool count = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() < 18;
        if (count) {
          j.field(k, std::stoll(v));
        } else if (v == "true" || v == "false") {
          j.field(k, v == "true");
        } else {
          j.nullable(k, v);
        }
      }
      w.EndObject();
    }
  }
  w.EndObject();
  using T = TunerCacheField;
  j.object(key::k_tuner_cache, [&] {
    to_json(j, p.tuner_cache, {T::mode, T::path, T::entries_before, T::note, T::removed_after});
  });
  using N = NodeField;
  j.object(key::k_node, [&] { to_json(j, p.node, {N::op, N::node, N::marker, N::resolution}); });
  j.key("shapes");
  w.StartObject();
  j.field("file", p.run_dir + "/shapes.yaml");
  j.field("source", p.shape_source);
  j.field("passed_to_pytest", !p.shape_file.empty());
  j.strings("keys", p.shape_keys);
  w.EndObject();
  j.field(key::k_flaggems_dir, util::absolute(p.request.flaggems_dir));
  j.nullable(key::k_flaggems_commit, commit);
  using R = ReleaseField;
  j.object("flaggems_release", [&] { to_json(j, p.release, {R::version, R::layout}); });
  j.key(key::k_versions);
  rapidjson::Document versions;
  if (!versions_json.empty() && !versions.Parse(versions_json.c_str()).HasParseError() && versions.IsObject()) {
    j.copy(versions, "the versions the Python probe printed");
  } else {
    w.Null();
  }
  if (o.tests) {
    j.object("tests", [&] {
      j.field("passed", o.tests->passed);
      j.field("failed", o.tests->failed);
      j.field("error", o.tests->error);
      j.field("skipped", o.tests->skipped);
      j.field("unsupported", o.tests->unsupported);
      j.strings("skip_reasons", o.tests->skip_reasons);
      j.strings("unsupported_dtypes", o.tests->unsupported_dtypes);
    });
  } else {
    j.key("tests");
    w.Null();
  }
  if (o.telemetry) { // the device's state around the run: clocks, heat, power, lock, throttles
    j.object("telemetry", [&] { write_summary(j, *o.telemetry); });
  } else {
    j.key("telemetry");
    w.Null();
  }
  j.strings("plugins", p.plugins);
  j.strings(key::k_pytest_extra_args, p.request.extra_args);
  j.key(key::k_executor);
  w.StartObject();
  j.field(key::k_name, o.executor.name);
  j.nullable("pid", o.executor.pid);
  j.nullable("ops_before", o.executor.ops_before);
  j.strings("preloaded", o.executor.preloaded);
  j.strings("restored", o.executor.restored);
  j.strings("recycled", o.executor.recycled);
  w.EndObject();
  // Under Slurm (a task of `zl batch --executor slurm`, or any job): which job, task and node, and
  // the GPUs Slurm allocated; null elsewhere. The visibility mask that allocation set is the
  // device's inherited_mask, read through the backend's own variable (the core names no vendor).
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v == nullptr ? "" : v);
  };
  if (env("SLURM_JOB_ID").empty()) {
    j.key(key::k_slurm);
    w.Null();
  } else {
    j.object(key::k_slurm, [&] {
      j.field(key::k_job_id, env("SLURM_JOB_ID"));
      j.nullable(key::k_array_job_id, env("SLURM_ARRAY_JOB_ID"));
      j.nullable(key::k_array_task_id, env("SLURM_ARRAY_TASK_ID"));
      j.nullable(key::k_slurm_node, env("SLURMD_NODENAME"));
      j.nullable("job_gpus", env("SLURM_JOB_GPUS"));
    });
  }
  j.nullable(key::k_record_log, o.record_log);
  j.field("run_dir", p.run_dir);
  w.EndObject();
  return j.text();
}

} // namespace zl::run
