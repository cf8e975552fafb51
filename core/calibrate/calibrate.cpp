#include "calibrate/calibrate.hpp"

#include "run/identity.hpp"
#include "run/plan.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/process.hpp"
#include "util/signals.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

extern char** environ;

namespace zl::calibrate {

namespace {

namespace fs = boost::filesystem;

// An accelerator's copy must outgrow its caches (an H100's L2 is 50 MB) and its GEMM fill its
// tensor cores; the host's must stay short on a shared CI machine.
constexpr std::uint32_t k_device_copy_mib = 1024, k_device_gemm_n = 8192;
constexpr std::uint32_t k_host_copy_mib = 256, k_host_gemm_n = 1024;
constexpr std::chrono::minutes k_timeout{10};

std::string safe(std::string_view s)
{
  std::string out;
  for (const char c : s) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out.empty() ? "_" : out;
}

// zl's environment, the device pinned as zl run pins it, the plugins importable.
std::vector<std::string> child_env(const loader::Module& backend, const loader::Device& device)
{
  const auto unset = loader::string_list(backend.desc.visibility_unset);
  const std::string pin_var = backend.desc.visibility_var;
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto name = entry.substr(0, entry.find('='));
    if (name != pin_var && name != "PYTHONPATH" && std::find(unset.begin(), unset.end(), name) == unset.end()) {
      env.push_back(entry);
    }
  }
  if (!pin_var.empty()) {
    env.push_back(pin_var + "=" + device.pin);
  }
  auto path = run::plugin_python_path();
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing != '\0') {
    path.emplace_back(existing);
  }
  env.push_back("PYTHONPATH=" + util::join(path, ":"));
  return env;
}

// Runs zl_calibrate.py and returns its JSON line; throws Error with what it said on failure.
std::string measure(const loader::Module& backend, const loader::Device& device, const Request& r, bool host)
{
  const auto copy = r.copy_mib != 0 ? r.copy_mib : host ? k_host_copy_mib : k_device_copy_mib;
  const auto n = r.gemm_n != 0 ? r.gemm_n : host ? k_host_gemm_n : k_device_gemm_n;
  util::SpawnSpec spec;
  spec.argv = {r.python,
               "-m",
               "zl_calibrate",
               "--device-type",
               backend.desc.torch_device,
               "--copy-mib",
               std::to_string(copy),
               "--gemm-n",
               std::to_string(n)};
  if (!host) {
    spec.argv.insert(spec.argv.end(), {"--device-module", backend.desc.torch_module});
  }
  spec.env = child_env(backend, device);
  spec.new_process_group = true;
  spec.timeout = k_timeout;
  const util::SignalForwarding forwarding;
  spec.signals = &forwarding;
  std::string out, err;
  util::ProcessResult result;
  try {
    result = util::run(
        spec, [&out](std::string_view s) { out += s; }, [&err](std::string_view s) { err += s; });
  } catch (const util::SpawnFailure& e) {
    throw Error(fmt::format("{}; pass --python with an interpreter that has torch", e.message));
  }
  if (result.stop_requested) {
    throw Error("zl calibrate was stopped before it measured; nothing was stored", k_exit_interrupted);
  }
  if (result.exit_code != 0 || out.empty()) {
    const auto said = util::printable(util::trim(err).empty() ? out : std::string(util::trim(err)), 600);
    const auto fix = result.exit_code == 3   ? "pass --python with an interpreter that has torch"
                     : result.timed_out      ? "the device may be busy or hung; try again with a smaller --copy-mib"
                     : result.exit_code == 4 ? "check the device with zl devices and the vendor's tool"
                                             : "see the message above";
    throw Error(fmt::format("{} -m zl_calibrate {} (exit {}): {}; {}", r.python,
                            result.timed_out ? "timed out" : "failed", result.exit_code, said, fix));
  }
  return out;
}

double number(const rapidjson::Value& v, const char* key, const std::string& file)
{
  if (!v.HasMember(key) || !v[key].IsNumber() || !(v[key].GetDouble() > 0)) {
    throw Error(fmt::format("{}: \"{}\" is not a positive number: not a calibration of zl's", file, key));
  }
  return v[key].GetDouble();
}

std::string text(const rapidjson::Value& v, const char* key)
{
  return v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "";
}

} // namespace

std::string store_dir()
{
  if (const char* dir = std::getenv("ZL_CALIBRATION_DIR"); dir != nullptr && *dir != '\0') {
    return util::absolute(dir);
  }
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
    return util::absolute(std::string(cache) + "/zl/calibration");
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    throw Error("zl calibrate keeps its results in ~/.cache/zl/calibration, but HOME is not set; set "
                "ZL_CALIBRATION_DIR to a folder");
  }
  return std::string(home) + "/.cache/zl/calibration";
}

std::string file_for(const std::string& dir, const std::string& uuid, const std::string& driver)
{
  return dir + "/" + safe(uuid) + "--" + safe(driver.empty() ? "unknown-driver" : driver) + ".json";
}

void write_json(util::JsonWriter& j, const Calibration& c)
{
  j.field("schema", 1);
  j.field("backend", c.backend), j.field("uuid", c.uuid), j.field("name", c.name), j.field("driver", c.driver);
  j.field("measured_at", c.measured_at), j.field("torch", c.torch);
  j.field("torch_device_name", c.torch_device_name), j.field("method", c.method);
  j.field("copy_bytes", static_cast<unsigned long long>(c.copy_bytes)), j.field("copy_gbps", c.copy_gbps);
  j.field("gemm_n", c.gemm_n), j.field("gemm_dtype", c.gemm_dtype), j.field("gemm_tflops", c.gemm_tflops);
}

Calibration read_json(const std::string& json, const std::string& file)
{
  rapidjson::Document d;
  if (d.Parse(json.c_str()).HasParseError() || !d.IsObject()) {
    throw Error(fmt::format("{}: not JSON, not a calibration of zl's", file));
  }
  Calibration c;
  c.backend = text(d, "backend"), c.uuid = text(d, "uuid"), c.name = text(d, "name"), c.driver = text(d, "driver");
  c.measured_at = text(d, "measured_at"), c.torch = text(d, "torch");
  c.torch_device_name = text(d, "torch_device_name"), c.method = text(d, "method");
  c.copy_bytes = static_cast<std::uint64_t>(number(d, "copy_bytes", file));
  c.copy_gbps = number(d, "copy_gbps", file);
  c.gemm_n = static_cast<std::uint32_t>(number(d, "gemm_n", file));
  c.gemm_dtype = text(d, "gemm_dtype");
  c.gemm_tflops = number(d, "gemm_tflops", file);
  c.file = file;
  return c;
}

std::optional<Calibration> find(const std::string& uuid, const std::string& driver)
{
  if (uuid.empty()) {
    return std::nullopt;
  }
  try {
    const auto file = file_for(store_dir(), uuid, driver);
    if (!fs::is_regular_file(file)) {
      return std::nullopt;
    }
    auto c = read_json(util::read_file(file), file);
    c.stored = true;
    return c;
  } catch (const std::exception&) { // no HOME, an unreadable or foreign file: no measured peak
    return std::nullopt;
  }
}

Calibration calibrate(const loader::Module& backend, const loader::Device& device, const Request& request)
{
  const auto driver = backend.read_telemetry(device, devices::Phase::now).driver;
  const auto file = file_for(store_dir(), device.uuid, driver);
  if (!request.force && fs::exists(file)) {
    try {
      auto c = read_json(util::read_file(file), file);
      c.stored = true;
      return c;
    } catch (const Error& e) {
      std::cerr << fmt::format("zl calibrate: {}; measuring again\n", e.what());
    }
  }
  const bool host = *backend.desc.torch_module == '\0';
  Calibration c = read_json(measure(backend, device, request, host), "zl_calibrate's output");
  c.backend = backend.name(), c.uuid = device.uuid, c.name = device.name, c.driver = driver;
  c.measured_at = run::utc_now();
  c.method = "best of 5 rounds, timed by perf_counter between synchronize calls; copy counts bytes read plus written";
  c.file = file;
  util::JsonWriter j;
  j.w().StartObject();
  write_json(j, c);
  j.w().EndObject();
  try {
    fs::create_directories(fs::path(file).parent_path());
    util::write_file_atomic(file, j.text());
  } catch (const std::exception& e) { // boost's filesystem_error and zl's own alike
    throw Error(fmt::format("measured (copy {:.1f} GB/s, GEMM {:.3f} TFLOPS) but cannot keep it in {}: {}; set "
                            "ZL_CALIBRATION_DIR to a folder zl can write",
                            c.copy_gbps, c.gemm_tflops, file, e.what()));
  }
  return c;
}

} // namespace zl::calibrate
