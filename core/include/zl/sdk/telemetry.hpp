// Telemetry: one reading of a device's state as a backend collects it, and the answer of
// read_telemetry written into the core's zl_telemetry (zl/backend_sdk.hpp says how the SDK's
// headers fit together).
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/device.hpp>
#include <zl/sdk/text.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace zl::sdk {

// What a backend read; an empty optional or string is a field it could not read. Units are the
// ABI's, except power, which tools print in watts.
struct Telemetry
{
  std::optional<uint32_t> sm_clock_mhz;
  std::optional<uint32_t> sm_clock_max_mhz;
  std::optional<uint32_t> mem_clock_mhz;
  std::optional<uint32_t> mem_clock_max_mhz;
  std::optional<uint32_t> locked_mhz; // 0: read, and not locked; n: locked (or application) at n
  std::optional<int32_t> temperature_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<uint64_t> throttle; // ZL_THROTTLE_* bits
  std::string throttle_text;        // the vendor's words for the reasons, "" for none
  std::optional<bool> ecc;
  std::optional<bool> mig;
  std::string driver_version;
  std::string firmware_version;
  std::string source; // what answered ("NVML", "rocm-smi")
  std::string reason; // what could not be read and why; "" when all was
};

// A tool's telemetry parser's answer: the reading, or an error quoting what it could not read.
struct TelemetryParse
{
  Telemetry telemetry;
  std::string error; // empty on success
};

namespace detail {
inline uint32_t milliwatts(double watts)
{
  return watts <= 0 || !std::isfinite(watts) ? 0 : static_cast<uint32_t>(std::lround(watts * 1000.0));
}
} // namespace detail

// Copies a reading into the core's struct: each field read sets its ZL_TEL_* bit. No field read
// is an answer too (ZL_OK) when the reason says why.
inline zl_status publish_telemetry(zl_telemetry* out, const Telemetry& t)
{
  const auto set = [out](uint32_t bit, auto& field, auto value) {
    field = value;
    out->present |= bit;
  };
  if (t.sm_clock_mhz)
    set(ZL_TEL_SM_CLOCK, out->sm_clock_mhz, *t.sm_clock_mhz);
  if (t.sm_clock_max_mhz)
    set(ZL_TEL_SM_CLOCK_MAX, out->sm_clock_max_mhz, *t.sm_clock_max_mhz);
  if (t.mem_clock_mhz)
    set(ZL_TEL_MEM_CLOCK, out->mem_clock_mhz, *t.mem_clock_mhz);
  if (t.mem_clock_max_mhz)
    set(ZL_TEL_MEM_CLOCK_MAX, out->mem_clock_max_mhz, *t.mem_clock_max_mhz);
  if (t.locked_mhz) {
    set(ZL_TEL_LOCKED, out->sm_clock_locked_mhz, *t.locked_mhz);
    out->clocks_locked = *t.locked_mhz != 0 ? 1 : 0;
  }
  if (t.temperature_c)
    set(ZL_TEL_TEMPERATURE, out->temperature_c, *t.temperature_c);
  if (t.power_w)
    set(ZL_TEL_POWER, out->power_mw, detail::milliwatts(*t.power_w));
  if (t.power_limit_w)
    set(ZL_TEL_POWER_LIMIT, out->power_limit_mw, detail::milliwatts(*t.power_limit_w));
  if (t.throttle) {
    set(ZL_TEL_THROTTLE, out->throttle, *t.throttle);
    copy_field(out->throttle_text, t.throttle_text);
  }
  if (t.ecc)
    set(ZL_TEL_ECC, out->ecc, *t.ecc ? 1u : 0u);
  if (t.mig)
    set(ZL_TEL_MIG, out->mig, *t.mig ? 1u : 0u);
  if (!t.driver_version.empty()) {
    out->present |= ZL_TEL_DRIVER;
    copy_field(out->driver_version, t.driver_version);
  }
  if (!t.firmware_version.empty()) {
    out->present |= ZL_TEL_FIRMWARE;
    copy_field(out->firmware_version, t.firmware_version);
  }
  copy_field(out->source, t.source);
  copy_field(out->reason, t.reason);
  return ZL_OK;
}

// A read_telemetry for the descriptor: Read(host, device) returns a Telemetry (or throws), and
// what it read goes out through publish_telemetry; any exception becomes ZL_ERR_INTERNAL with no
// field present and a reason, since nothing may be thrown across the ABI.
template <Telemetry (*Read)(const zl_host_api*, const Device&)>
zl_status guarded_telemetry(const zl_host_api* host, const zl_device_info* device, zl_telemetry* out) noexcept
{
  try {
    const Device d{device->index, text_field(device->uuid), text_field(device->name), device->memory_bytes,
                   text_field(device->visibility_id)};
    return publish_telemetry(out, Read(host, d));
  } catch (const std::exception& e) {
    out->present = 0;
    std::snprintf(out->reason, sizeof(out->reason), "internal error while reading telemetry: %s", e.what());
    return ZL_ERR_INTERNAL;
  } catch (...) {
    out->present = 0;
    std::snprintf(out->reason, sizeof(out->reason),
                  "internal error while reading telemetry (an exception of "
                  "unknown type)");
    return ZL_ERR_INTERNAL;
  }
}

} // namespace zl::sdk
