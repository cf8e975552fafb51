#include "run/plan.hpp"

#include "devices/select.hpp"
#include "loader/fields.hpp"
#include "loader/search_path.hpp"
#include "shapes/shape_resolver.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <zl/version.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>

extern char** environ;

namespace zl::run {

namespace fs = boost::filesystem;

namespace {

// Inputs of zl (and of the harness it replaces) that must not reach the benchmark process.
const char* const k_zl_inputs[] = {"TEST_NODE",  "OP",          "OP_FILE",      "BENCH_LEVEL",         "SHAPE_FILE",
                                   "SHAPE_MODE", "REPLAY_FROM", "FLAGGEMS_DIR", "PARALLEL_WARMUP_GPUS"};

std::string default_run_dir(const std::string& op, const std::string& backend)
{
  const auto now = std::chrono::system_clock::now();
  const auto base =
      fmt::format("runs/{:%Y%m%dT%H%M%S}Z-{}-{}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)), op, backend);
  std::string dir = base;
  for (int i = 2; fs::exists(dir); ++i) {
    dir = fmt::format("{}-{}", base, i);
  }
  return util::absolute(dir);
}

} // namespace

std::string resolve_timer(const std::string& requested, const loader::Module& backend)
{
  const bool capture = backend.has(ZL_CAP_GRAPH_CAPTURE);
  if (requested == "auto") {
    return capture ? "graph" : "direct";
  }
  if (requested == "graph" && !capture) {
    throw Error(fmt::format("--timer graph: backend {} cannot capture device graphs; use --timer direct (or auto)",
                            backend.name()));
  }
  if (requested == "profiler" && !backend.has(ZL_CAP_PROFILER_TIMER)) {
    throw Error(fmt::format("--timer profiler: backend {} has no device profiler timing; use --timer direct (or "
                            "auto)",
                            backend.name()));
  }
  return requested;
}

std::string timer_reason(const std::string& requested, const std::string& effective, const loader::Module& backend)
{
  if (requested != "auto") {
    return fmt::format("--timer {} given", requested);
  }
  return effective == "graph" ? fmt::format("auto: backend {} supports graph capture", backend.name())
                              : fmt::format("auto: backend {} has no graph capture", backend.name());
}

void check_mode(const std::string& mode, const loader::Module& backend)
{
  if (mode == "cudagraph" && !backend.has(ZL_CAP_GRAPH_CAPTURE)) {
    throw Error(fmt::format("--mode cudagraph: backend {} cannot capture device graphs; use --mode kernel (or "
                            "operator, wrapper)",
                            backend.name()));
  }
}

std::string record_log_name(const std::vector<std::string>& pytest_args)
{
  std::vector<std::string> parts;
  for (auto arg : pytest_args) {
    for (auto at = arg.find(".py"); at != std::string::npos; at = arg.find(".py", at)) {
      arg.erase(at, 3);
    }
    std::replace(arg.begin(), arg.end(), '=', '_');
    std::replace(arg.begin(), arg.end(), '/', '_');
    parts.push_back(arg);
  }
  auto name = "result_" + util::join(parts, "_") + ".log";
  for (auto at = name.find("_-"); at != std::string::npos; at = name.find("_-", at)) {
    name.erase(at, 1);
  }
  return name;
}

std::vector<std::string> plan_plugins(const loader::Module& backend, const std::string& timer,
                                      const std::string& autotune_mode)
{
  std::vector<std::string> plugins;
  if (backend.desc.compat_rule_count > 0) {
    plugins.push_back("zl_compat");
  }
  plugins.push_back("zl_device_setup");
  plugins.push_back("zl_timing");
  if (autotune_mode == "record" || autotune_mode == "replay") {
    plugins.push_back("zl_autotune");
  }
  if (timer == "graph") {
    plugins.push_back("zl_capture");
  }
  plugins.push_back("zl_identity");
  return plugins;
}

std::string replay_records_dir(const std::string& replay_from)
{
  const auto dir = util::absolute(replay_from);
  return fs::is_directory(dir + "/autotune_records") ? dir + "/autotune_records" : dir;
}

loader::Device choose_device(const loader::Module& backend, const std::string& wanted)
{
  return devices::choose_one(backend, wanted);
}

std::vector<std::string> plugin_python_path()
{
  const auto installed = fs::path(loader::binary_prefix()) / "share" / "zl" / "python";
  if (fs::is_directory(installed / "zl_plugins")) {
    return {(installed / "zl_plugins").string()};
  }
  return {std::string(ZL_SOURCE_DIR) + "/python/zl_plugins"};
}

std::vector<std::string> zl_pytest_options(const Plan& p)
{
  // The run folder is the root (nodeids as a plain session in the checkout has them) and the
  // conftest boundary (older pytest loads only conftests below it); the checkout's pytest.ini
  // still applies (its pythonpath and warning filters).
  std::vector<std::string> options = {"-s", "-p", "no:cacheprovider", "--rootdir=.", "--confcutdir=."};
  const auto ini = fs::path(util::absolute(p.request.flaggems_dir)) / "pytest.ini";
  if (fs::is_regular_file(ini)) {
    options.insert(options.end(), {"-c", ini.string()});
  }
  for (const auto& plugin : p.plugins) {
    options.insert(options.end(), {"-p", plugin});
  }
  if (!p.node.marker.empty()) {
    options.insert(options.end(), {"-m", p.node.marker});
  }
  return options;
}

std::string pytest_addopts(const std::vector<std::string>& options)
{
  // pytest splits the variable as a POSIX shell would: a word of plain characters stays as it is
  // (readable in run.log's '# pytest:' line), any other is quoted.
  auto plain = [](const std::string& o) {
    return !o.empty() &&
           o.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.,/:=+@") ==
               std::string::npos;
  };
  std::vector<std::string> quoted;
  for (const auto& o : options) {
    quoted.push_back(plain(o) ? o : util::shell_quote(o));
  }
  return util::join(quoted, " ");
}

Plan make_plan(const Request& request, const loader::Module& backend, const std::string& backend_how)
{
  Plan p;
  p.request = request;
  p.backend = &backend;
  p.backend_how = backend_how;
  p.node = resolve_node(request.flaggems_dir, request.op, request.op_file, request.test_node, request.python);
  p.release = read_release(request.flaggems_dir);
  p.timer = resolve_timer(request.timer, backend);
  p.timer_reason = timer_reason(request.timer, p.timer, backend);
  check_mode(request.mode, backend);
  if (!request.replay_from.empty()) {
    p.autotune_mode = "replay";
    p.autotune_source = replay_records_dir(request.replay_from);
  } else if (request.record_autotune) {
    p.autotune_mode = "record";
  }
  p.plugins = plan_plugins(backend, p.timer, p.autotune_mode);
  p.device = choose_device(backend, request.device);
  p.run_dir = request.out_dir.empty() ? default_run_dir(p.node.op, backend.name()) : util::absolute(request.out_dir);
  p.plan_path = p.run_dir + "/plan.json";
  p.versions_file = p.run_dir + "/python_versions.json";
  p.outcomes_file = p.run_dir + "/outcomes.json";
  p.samples_file = p.run_dir + "/samples.bin";
  p.sampling = parse_sampling(request.sampling.empty() ? k_sampling_default : request.sampling);
  p.telemetry_file = p.run_dir + "/telemetry.jsonl";
  p.telemetry = parse_telemetry(request.telemetry.empty() ? k_telemetry_default : request.telemetry);
  // The shapes in force are archived in the run folder and pytest reads that copy.
  p.shape_source = request.shape_file.empty() ? util::absolute(request.flaggems_dir + "/benchmark/core_shapes.yaml")
                                              : util::absolute(request.shape_file);
  if (!request.shape_file.empty()) {
    p.shape_file = p.run_dir + "/shapes.yaml";
  }
  if (p.autotune_mode == "record") {
    p.autotune_records = p.run_dir + "/autotune_records";
  }
  const bool isolated = request.isolate_tuner_cache;
  p.tuner_cache = isolated ? TunerCache{"isolated", p.run_dir + "/.tuner-cache", 0, {}, ""}
                           : inspect_tuner_cache(default_cache_dir(), "shared");

  try {
    const auto resolved = shapes::resolve_shapes({request.flaggems_dir, p.node.file, p.node.op, request.shape_file});
    p.shape_keys = resolved.keys();
  } catch (const Error&) {
    // Preflight has checked a given shape file; FlagGems' own may be absent from a test tree.
  }

  // pytest runs in the run folder, so FlagGems' record log and JSON report land there, and
  // reaches the node through a link there to the node's top folder (benchmark -> the checkout's
  // benchmark). FlagGems names its record log after every argument pytest was given, and a name
  // over 255 bytes stops the session; so the argument list is what a plain session in the
  // checkout would give (the node, FlagGems' own options, the extra arguments), and everything
  // zl adds goes through PYTEST_ADDOPTS, which pytest reads but FlagGems' name leaves out.
  p.node_link = p.run_dir + "/" + p.node.file.substr(0, p.node.file.find('/'));
  p.argv = {request.python, "-m", "pytest", p.node.node, "--level", request.level};
  if (!mode_names_device(p.release)) {
    // A release whose --mode names the device (v3.0) times kernels by default: no --mode then.
    p.argv.insert(p.argv.end(), {"--mode", request.mode});
  }
  p.argv.insert(p.argv.end(), {"--record", "log"});
  for (const auto& d : request.dtypes) {
    p.argv.insert(p.argv.end(), {"--dtypes", d});
  }
  if (!p.shape_file.empty()) {
    // Relative to pytest's working folder, the run folder, for the same reason.
    p.argv.insert(p.argv.end(), {"--shape_file", fs::path(p.shape_file).filename().string()});
  }
  check_release(p.release, request.mode, {p.argv.begin() + 4, p.argv.end()}, request.extra_args);
  p.argv.insert(p.argv.end(), request.extra_args.begin(), request.extra_args.end());
  p.pytest_options = zl_pytest_options(p);

  const auto& d = backend.desc;
  p.env_set.emplace_back("ZL_PLAN", p.plan_path);
  if (*d.visibility_var != '\0') {
    p.env_set.emplace_back(d.visibility_var, p.device.pin);
  }
  auto python_path = plugin_python_path();
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0') {
    python_path.emplace_back(existing);
  }
  p.env_set.emplace_back("PYTHONPATH", util::join(python_path, ":"));
  p.env_set.emplace_back("PYTHONUNBUFFERED", "1");
  // pytest cuts a failed test's "FAILED node - message" line to the terminal's width (80 on a
  // pipe) unless it runs on CI: the message is what a user needs to act, so it stays whole.
  p.env_set.emplace_back("CI", "1");
  if (isolated) {
    p.env_set.emplace_back("FLAGGEMS_CACHE_DIR", p.tuner_cache.path);
    p.env_set.emplace_back("TRITON_CACHE_DIR", p.run_dir + "/.triton-cache");
  }
  p.env_unset = loader::string_list(d.visibility_unset);
  p.env_set.emplace_back("PYTEST_ADDOPTS", pytest_addopts(p.pytest_options));
  // pytest loads plugins from this too; only what the plan shows may reach it.
  p.env_unset.emplace_back("PYTEST_PLUGINS");
  if (isolated) {
    p.env_unset.emplace_back("FLAGGEMS_DB_URL");
  }
  return p;
}

std::vector<std::string> child_environment(const Plan& plan)
{
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    const bool zl_input = name.rfind("ZL_", 0) == 0 ||
                          std::find(std::begin(k_zl_inputs), std::end(k_zl_inputs), name) != std::end(k_zl_inputs);
    const bool unset = std::find(plan.env_unset.begin(), plan.env_unset.end(), name) != plan.env_unset.end();
    const bool replaced =
        std::any_of(plan.env_set.begin(), plan.env_set.end(), [&](const auto& kv) { return kv.first == name; });
    if (!zl_input && !unset && !replaced) {
      env.push_back(entry);
    }
  }
  for (const auto& [k, v] : plan.env_set) {
    env.push_back(k + "=" + v);
  }
  return env;
}

void autotune_fields(util::JsonWriter& j, const Plan& p)
{
  j.field("mode", p.autotune_mode);
  j.nullable("source", p.autotune_source);
  j.nullable("records_dir", p.autotune_records);
}

std::string plan_json(const Plan& p)
{
  util::JsonWriter j;
  auto& w = j.w();
  const auto& d = p.backend->desc;
  w.StartObject();
  j.field("schema", 1);
  j.field("zl_version", k_version);
  j.field("run_dir", p.run_dir);
  using B = loader::BackendField;
  j.object("backend", [&] {
    loader::to_json(j, {p.backend, p.backend_how},
                    {B::name, B::module, B::abi, B::version, B::selected_by, B::flaggems_vendor, B::torch_module,
                     B::torch_device, B::graph_class, B::capabilities, B::visibility_var});
  });
  using D = loader::DeviceField;
  j.object("device", [&] { loader::to_json(j, p.device, {D::index, D::uuid, D::name, D::visibility_id}); });
  // The node's fields stand at the top level here (the plugins read "op"), so its resolution
  // keeps the prefix that says whose it is.
  using N = NodeField;
  to_json(j, p.node, {N::op, N::node, N::marker, {N::resolution, "node_resolution"}});
  j.field("flaggems_dir", util::absolute(p.request.flaggems_dir));
  using R = ReleaseField;
  j.object("flaggems_release", [&] {
    to_json(j, p.release, {R::version, R::version_source, R::layout, R::options, R::modes});
  });
  j.field("level", p.request.level);
  j.field("mode", p.request.mode);
  j.strings("dtypes", p.request.dtypes);
  j.field("timer", p.timer);
  j.field("timer_requested", p.request.timer);
  j.key("sampling");
  write_sampling(j, p.sampling);
  j.field("samples_file", p.samples_file);
  j.field("formula_metrics", true); // the benchmark's own gbps/tflops formulas (zl_metrics.py)
  j.field("telemetry", to_string(p.telemetry));
  j.field("timer_reason", p.timer_reason);
  j.key("capture");
  w.StartObject();
  j.strings("refused", loader::string_list(d.capture.refused));
  j.strings("device_fault", loader::string_list(d.capture.device_fault));
  j.strings("poisoned", loader::string_list(d.capture.poisoned));
  j.strings("deny_ops", loader::string_list(d.capture_deny_ops));
  w.EndObject();
  j.key("compat_rules");
  w.StartArray();
  for (size_t i = 0; i < d.compat_rule_count; ++i) {
    const auto& r = d.compat_rules[i];
    w.StartObject();
    j.field("file", r.file);
    j.field("skip_reason", r.skip_reason);
    j.field("vendor", r.vendor);
    j.field("action", r.action == ZL_COMPAT_KEEP_SKIP ? "keep" : "drop");
    j.field("why", r.why);
    w.EndObject();
  }
  w.EndArray();
  j.strings("plugins", p.plugins);
  j.nullable("shape_file", p.shape_file);
  j.field("shape_source", p.shape_source);
  j.strings("shape_keys", p.shape_keys);
  j.object("autotune", [&] { autotune_fields(j, p); });
  using T = TunerCacheField;
  j.object("tuner_cache", [&] {
    to_json(j, p.tuner_cache, {T::mode, T::path, T::entries_before, T::databases, T::note});
  });
  j.field("versions_file", p.versions_file);
  j.field("outcomes_file", p.outcomes_file);
  j.strings("pytest_argv", p.argv);
  j.strings("pytest_options", p.pytest_options);
  j.strings("pytest_extra_args", p.request.extra_args);
  j.field("node_link", p.node_link);
  j.key("env_set");
  w.StartObject();
  for (const auto& [k, v] : p.env_set) {
    j.field(k, v);
  }
  w.EndObject();
  j.strings("env_unset", p.env_unset);
  w.EndObject();
  return j.text();
}

} // namespace zl::run
