// Module::read_telemetry: one reading of a device's state through the module's read_telemetry
// (ABI 1.2), copied out of the ABI's fixed buffers into a devices::Reading.
#include "host/host_api.hpp"
#include "loader/module.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <mutex>

namespace zl::loader {

namespace {

// The ABI promises a module one call at a time; the campaign's samplers run in threads.
std::mutex g_calls;

double now_s()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

template <size_t N>
std::string field(const char (&buffer)[N])
{
  return {buffer, strnlen(buffer, N)};
}

zl_device_info info_of(const Device& d)
{
  zl_device_info info{};
  info.index = d.index;
  info.memory_bytes = d.memory_bytes;
  std::strncpy(info.uuid, d.uuid.c_str(), sizeof(info.uuid) - 1);
  std::strncpy(info.name, d.name.c_str(), sizeof(info.name) - 1);
  std::strncpy(info.visibility_id, d.visibility_id.c_str(), sizeof(info.visibility_id) - 1);
  return info;
}

void copy_out(const zl_telemetry& t, devices::Reading& r)
{
  const auto has = [&t](uint32_t bit) { return (t.present & bit) != 0; };
  if (has(ZL_TEL_SM_CLOCK))
    r.sm_clock_mhz = t.sm_clock_mhz;
  if (has(ZL_TEL_SM_CLOCK_MAX))
    r.sm_clock_max_mhz = t.sm_clock_max_mhz;
  if (has(ZL_TEL_MEM_CLOCK))
    r.mem_clock_mhz = t.mem_clock_mhz;
  if (has(ZL_TEL_MEM_CLOCK_MAX))
    r.mem_clock_max_mhz = t.mem_clock_max_mhz;
  if (has(ZL_TEL_LOCKED))
    r.locked_mhz = t.clocks_locked != 0 ? t.sm_clock_locked_mhz : 0;
  if (has(ZL_TEL_TEMPERATURE))
    r.temperature_c = t.temperature_c;
  if (has(ZL_TEL_POWER))
    r.power_w = t.power_mw / 1000.0;
  if (has(ZL_TEL_POWER_LIMIT))
    r.power_limit_w = t.power_limit_mw / 1000.0;
  if (has(ZL_TEL_THROTTLE)) {
    r.throttle = t.throttle;
    r.throttle_text = field(t.throttle_text);
  }
  if (has(ZL_TEL_ECC))
    r.ecc = t.ecc != 0;
  if (has(ZL_TEL_MIG))
    r.mig = t.mig != 0;
  if (has(ZL_TEL_DRIVER))
    r.driver = field(t.driver_version);
  if (has(ZL_TEL_FIRMWARE))
    r.firmware = field(t.firmware_version);
}

} // namespace

bool Module::has_telemetry() const
{
  return state == ModuleState::loaded && desc.read_telemetry != nullptr;
}

devices::Reading Module::read_telemetry(const Device& device, devices::Phase phase) const
{
  devices::Reading r;
  r.phase = phase;
  r.device = device.uuid;
  if (!has_telemetry()) {
    r.status = ZL_ERR_UNAVAILABLE;
    r.reason = state != ModuleState::loaded
                   ? error
                   : fmt::format("backend {} (ABI {}) reads no telemetry", name(), abi_version());
    r.at = now_s();
    return r;
  }
  const auto info = info_of(device);
  zl_telemetry out{};
  out.struct_size = sizeof(zl_telemetry);
  const host::HostApi host;
  const std::lock_guard<std::mutex> lock(g_calls);
  const auto start = now_s();
  r.status = desc.read_telemetry(host.get(), &info, &out);
  const auto end = now_s();
  r.at = (start + end) / 2, r.took_s = end - start;
  r.source = field(out.source);
  r.reason = field(out.reason);
  copy_out(out, r);
  if (r.status != ZL_OK && r.reason.empty()) {
    r.reason = fmt::format("{} reported status {} without a reason", path, r.status);
  }
  return r;
}

} // namespace zl::loader
