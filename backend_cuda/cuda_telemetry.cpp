// NVIDIA telemetry: the NVML reason mask in zl's terms, nvidia-smi's telemetry query and its
// parser, and the NVML-else-nvidia-smi reading (docs/vendor-facts.md §1.5).
#include "cuda_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace zl::backend_cuda {

namespace {

// The query's fields, in argv order; the parser indexes values by these positions. Names as
// `nvidia-smi --help-query-gpu` lists them (clocks.sm is clocks.current.sm, clocks.mem
// clocks.current.memory, clocks.max.mem clocks.max.memory).
enum Field : size_t {
  f_sm,
  f_sm_max,
  f_mem,
  f_mem_max,
  f_app,
  f_app_default,
  f_temperature,
  f_power,
  f_power_limit,
  f_reasons,
  f_ecc,
  f_mig,
  f_driver,
  f_vbios,
  f_count
};
const char* const k_fields[f_count] = {"clocks.sm",
                                       "clocks.max.sm",
                                       "clocks.mem",
                                       "clocks.max.mem",
                                       "clocks.applications.graphics",
                                       "clocks.default_applications.graphics",
                                       "temperature.gpu",
                                       "power.draw",
                                       "power.limit",
                                       "clocks_event_reasons.active",
                                       "ecc.mode.current",
                                       "mig.mode.current",
                                       "driver_version",
                                       "vbios_version"};

struct ReasonName
{
  uint64_t nvml;
  uint64_t zl;
  const char* name; // NVML's, without the nvmlClocksEventReason prefix
};
// HwThermalSlowdown is thermal first; HwSlowdown and HwPowerBrakeSlowdown are the hardware
// slowdowns ZL_THROTTLE_HW_SLOWDOWN means. DisplayClockSetting has no zl bit of its own.
const ReasonName k_reasons[] = {
    {k_nvml_gpu_idle, ZL_THROTTLE_IDLE, "GpuIdle"},
    {k_nvml_applications_clocks, ZL_THROTTLE_APP_CLOCKS, "ApplicationsClocksSetting"},
    {k_nvml_sw_power_cap, ZL_THROTTLE_POWER, "SwPowerCap"},
    {k_nvml_hw_slowdown, ZL_THROTTLE_HW_SLOWDOWN, "HwSlowdown"},
    {k_nvml_sync_boost, ZL_THROTTLE_SYNC_BOOST, "SyncBoost"},
    {k_nvml_sw_thermal, ZL_THROTTLE_THERMAL, "SwThermalSlowdown"},
    {k_nvml_hw_thermal, ZL_THROTTLE_THERMAL, "HwThermalSlowdown"},
    {k_nvml_hw_power_brake, ZL_THROTTLE_HW_SLOWDOWN, "HwPowerBrakeSlowdown"},
    {k_nvml_display_clock, ZL_THROTTLE_OTHER, "DisplayClockSetting"},
};

std::string hex64(uint64_t v)
{
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// nvidia-smi's words for a value it could not read: "[N/A]", "[Not Supported]", "[Unknown
// Error]", "[Insufficient Permissions]"… all bracketed; "N/A" bare in some versions.
bool unread(std::string_view v)
{
  return v == "N/A" || (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

bool parse_uint(std::string_view v, uint32_t& out)
{
  uint64_t n = 0;
  if (!sdk::parse_u64(v, n) || n > std::numeric_limits<uint32_t>::max()) {
    return false;
  }
  out = static_cast<uint32_t>(n);
  return true;
}

bool parse_int(std::string_view v, int32_t& out)
{
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  return !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
}

// Watts as nvidia-smi prints them ("69.54"); from_chars, unlike strtod, ignores the locale.
bool parse_watts(std::string_view v, double& out)
{
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  return !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size() && std::isfinite(out) && out >= 0;
}

// The reason mask, "0x0000000000000004" (the prefix is optional here).
bool parse_mask(std::string_view v, uint64_t& out)
{
  if (sdk::starts_with(v, "0x") || sdk::starts_with(v, "0X")) {
    v.remove_prefix(2);
  }
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out, 16);
  return !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
}

bool parse_enabled(std::string_view v, std::optional<bool>& out)
{
  if (v == "Enabled" || v == "Disabled") {
    out = v == "Enabled";
    return true;
  }
  return false;
}

// A clock, temperature or power field into its optional; false when it is not a number.
template <typename T, typename Parse>
bool parse_into(std::string_view v, std::optional<T>& field, Parse parse)
{
  T value{};
  if (!parse(v, value)) {
    return false;
  }
  field = value;
  return true;
}

// One value into its field of t (the application clocks into app[0] and app[1]); false when it
// is not the field's form.
bool parse_value(size_t field, std::string_view v, Telemetry& t, uint32_t (&app)[2])
{
  switch (field) {
  case f_sm:
    return parse_into(v, t.sm_clock_mhz, parse_uint);
  case f_sm_max:
    return parse_into(v, t.sm_clock_max_mhz, parse_uint);
  case f_mem:
    return parse_into(v, t.mem_clock_mhz, parse_uint);
  case f_mem_max:
    return parse_into(v, t.mem_clock_max_mhz, parse_uint);
  case f_app:
  case f_app_default:
    return parse_uint(v, app[field - f_app]);
  case f_temperature:
    return parse_into(v, t.temperature_c, parse_int);
  case f_power:
    return parse_into(v, t.power_w, parse_watts);
  case f_power_limit:
    return parse_into(v, t.power_limit_w, parse_watts);
  case f_reasons: {
    uint64_t mask = 0;
    if (!parse_mask(v, mask)) {
      return false;
    }
    Throttle th = map_throttle(mask);
    t.throttle = th.bits;
    t.throttle_text = std::move(th.text);
    return true;
  }
  case f_ecc:
    return parse_enabled(v, t.ecc);
  case f_mig:
    return parse_enabled(v, t.mig);
  case f_driver:
    t.driver_version = std::string(v);
    return true;
  default:
    t.firmware_version = std::string(v);
    return true;
  }
}

// Whether nvidia-smi refused the clocks_event_reasons field: drivers older than its
// introduction know it only as clocks_throttle_reasons (`nvidia-smi --help-query-gpu` of either
// lists the one it knows) and print `Field "…" is not a valid field to query.` on standard
// output, exiting non-zero.
bool refused_event_reasons(const sdk::ToolOutput& tool)
{
  const auto said = [](const std::string& text) {
    return text.find("is not a valid field to query") != std::string::npos &&
           text.find("clocks_event_reasons") != std::string::npos;
  };
  return tool.status == ZL_OK && (said(tool.out) || said(tool.reason));
}

} // namespace

Throttle map_throttle(uint64_t nvml_reasons)
{
  Throttle t;
  uint64_t known = 0;
  for (const auto& r : k_reasons) {
    known |= r.nvml;
    if ((nvml_reasons & r.nvml) != 0) {
      t.bits |= r.zl;
      t.text += (t.text.empty() ? "" : ",") + std::string(r.name);
    }
  }
  if (const uint64_t other = nvml_reasons & ~known; other != 0) {
    t.bits |= ZL_THROTTLE_OTHER;
    t.text += (t.text.empty() ? "" : ",") + hex64(other);
  }
  return t;
}

std::vector<std::string> nvidia_smi_telemetry_argv(const Device& device, bool old_reasons)
{
  std::string query;
  for (size_t i = 0; i < f_count; ++i) {
    const std::string field = i == f_reasons && old_reasons ? "clocks_throttle_reasons.active" : k_fields[i];
    query += (query.empty() ? "" : ",") + field;
  }
  return {"nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader,nounits", "-i",
          device.uuid.empty() ? std::to_string(device.index) : device.uuid};
}

sdk::TelemetryParse parse_nvidia_smi_telemetry(std::string_view text)
{
  sdk::TelemetryParse result;
  std::vector<std::string_view> rows;
  for (auto line : sdk::lines(text)) {
    if (!sdk::trim(line).empty()) {
      rows.push_back(line);
    }
  }
  if (rows.size() != 1) {
    result.error = rows.empty() ? "no output"
                                : "expected one line (one GPU), got " + std::to_string(rows.size()) + ", the first " +
                                      sdk::quote(sdk::trim(rows.front()));
    return result;
  }
  const auto line = rows.front();
  if (text.back() != '\n') {
    result.error = "output ends mid-line at " + sdk::quote(line);
    return result;
  }
  const auto values = sdk::split(line, ",");
  if (values.size() != f_count) {
    result.error = sdk::quote(line) + " has " + std::to_string(values.size()) + " fields, expected " +
                   std::to_string(f_count) + " (the fields of the query)";
    return result;
  }
  Telemetry& t = result.telemetry;
  std::string unread_fields;
  uint32_t app[2] = {}; // applications clock, its default
  bool app_read = true;
  for (size_t i = 0; i < f_count; ++i) {
    const auto v = sdk::trim(values[i]);
    if (unread(v) || v.empty()) {
      unread_fields += (unread_fields.empty() ? "" : ", ") + std::string(k_fields[i]) + " " +
                       (v.empty() ? std::string("(empty)") : std::string(v));
      app_read = app_read && i != f_app && i != f_app_default;
      continue;
    }
    if (!parse_value(i, v, t, app)) {
      result = {};
      result.error = sdk::quote(line) + ": " + k_fields[i] + " " + sdk::quote(v) + " not understood";
      return result;
    }
  }
  if (app_read) {
    // An application clock other than the default was set by a user (nvidia-smi -ac).
    t.locked_mhz = app[0] != app[1] ? app[0] : 0;
  }
  if (!unread_fields.empty()) {
    t.reason = "nvidia-smi could not read " + unread_fields;
  }
  return result;
}

Telemetry read_telemetry_with(const zl_host_api* host, const Device& device, NvmlTelemetryProbe probe)
{
  const NvmlReading nvml = probe(device);
  if (nvml.state == sdk::LibraryResult::State::ok) {
    return nvml.telemetry;
  }
  sdk::LibraryResult lib;
  lib.state = nvml.state;
  lib.detail = nvml.detail;
  const std::string note = sdk::library_note(lib, "libnvidia-ml.so.1", "NVML");
  const bool nvml_failed = nvml.state == sdk::LibraryResult::State::failed;

  Telemetry t;
  sdk::ToolOutput tool = sdk::run_tool(host, nvidia_smi_telemetry_argv(device));
  if (refused_event_reasons(tool)) {
    // Asked again each time rather than remembered: this is already the slow path, and a driver
    // upgrade under a long campaign would otherwise keep the old name.
    tool = sdk::run_tool(host, nvidia_smi_telemetry_argv(device, true));
  }
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    t.reason = sdk::unavailable_reason("nvidia-smi", tool) + " and " + note;
    return t;
  }
  if (!tool.ok()) {
    t.reason = sdk::join_notes({sdk::tool_failure("nvidia-smi", tool), note});
    return t;
  }
  sdk::TelemetryParse parsed = parse_nvidia_smi_telemetry(tool.out);
  if (!parsed.error.empty()) {
    t.reason = sdk::join_notes({"nvidia-smi --query-gpu output not understood: " + parsed.error, note});
    return t;
  }
  t = std::move(parsed.telemetry);
  t.source = nvml_failed ? "nvidia-smi (NVML failed)" : "nvidia-smi";
  // NVML merely absent is the ordinary case where nvidia-smi answers; NVML failing is worth saying.
  t.reason = sdk::join_notes({nvml_failed ? note : std::string(), t.reason});
  return t;
}

Telemetry read_telemetry(const zl_host_api* host, const Device& device)
{
  return read_telemetry_with(host, device, &query_nvml_telemetry);
}

} // namespace zl::backend_cuda
