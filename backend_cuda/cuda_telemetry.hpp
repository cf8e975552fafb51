// NVIDIA telemetry (read_telemetry, ABI 1.2): NVML (libnvidia-ml.so.1, opened at run time) first,
// nvidia-smi's --query-gpu CSV as the fallback. Facts and their sources: README.md in this folder
// and docs/vendor-facts.md §1.5.
#pragma once

#include "cuda_devices.hpp"

#include <zl/sdk/telemetry.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_cuda {

using Telemetry = sdk::Telemetry;

// NVML's clocks-event (formerly throttle) reason bits, as nvml.h defines them.
constexpr uint64_t k_nvml_gpu_idle = 0x1;
constexpr uint64_t k_nvml_applications_clocks = 0x2;
constexpr uint64_t k_nvml_sw_power_cap = 0x4;
constexpr uint64_t k_nvml_hw_slowdown = 0x8;
constexpr uint64_t k_nvml_sync_boost = 0x10;
constexpr uint64_t k_nvml_sw_thermal = 0x20;
constexpr uint64_t k_nvml_hw_thermal = 0x40;
constexpr uint64_t k_nvml_hw_power_brake = 0x80;
constexpr uint64_t k_nvml_display_clock = 0x100;

// An NVML reason mask in zl's terms: ZL_THROTTLE_* bits, and NVML's names of the set bits joined
// by "," ("SwPowerCap,HwSlowdown"); a bit NVML names no reason for is ZL_THROTTLE_OTHER, named
// by its hex value ("0x0000000000000400").
struct Throttle
{
  uint64_t bits = 0;
  std::string text;
};
Throttle map_throttle(uint64_t nvml_reasons);

// The nvidia-smi telemetry query for one GPU (-i takes the UUID, else the index). old_reasons:
// the field drivers before clocks_event_reasons was introduced call clocks_throttle_reasons.
std::vector<std::string> nvidia_smi_telemetry_argv(const Device& device, bool old_reasons = false);

// Parses the one line of that query: 14 comma-separated fields in the order of the argv. A
// bracketed value ("[N/A]", "[Not Supported]", "[Unknown Error]") or "N/A" is a field nvidia-smi
// could not read: left unread, named in the reason. Anything else that is not the field's form
// (a number, a hex mask, Enabled/Disabled), a wrong field count, several lines, no line or output
// ending mid-line is an error quoting it. Power stays in watts, as printed.
sdk::TelemetryParse parse_nvidia_smi_telemetry(std::string_view text);

// The NVML calls a reading makes, as C function pointers: bound from libnvidia-ml.so.1 or faked
// by tests. nvmlReturn_t is an int (0 success), nvmlDevice_t an opaque pointer, the enums ints.
// A null entry is a function this library lacks: its field is left unread.
struct NvmlCalls
{
  int (*by_uuid)(const char*, void**) = nullptr;             // nvmlDeviceGetHandleByUUID
  int (*by_index)(unsigned, void**) = nullptr;               // nvmlDeviceGetHandleByIndex_v2
  int (*clock)(void*, int, unsigned*) = nullptr;             // nvmlDeviceGetClockInfo
  int (*max_clock)(void*, int, unsigned*) = nullptr;         // nvmlDeviceGetMaxClockInfo
  int (*app_clock)(void*, int, unsigned*) = nullptr;         // nvmlDeviceGetApplicationsClock
  int (*default_app_clock)(void*, int, unsigned*) = nullptr; // nvmlDeviceGetDefaultApplicationsClock
  int (*temperature)(void*, int, unsigned*) = nullptr;       // nvmlDeviceGetTemperature
  int (*power)(void*, unsigned*) = nullptr;                  // nvmlDeviceGetPowerUsage (mW)
  int (*power_limit)(void*, unsigned*) = nullptr;            // nvmlDeviceGetEnforcedPowerLimit (mW)
  int (*reasons)(void*, unsigned long long*) = nullptr;      // nvmlDeviceGetCurrentClocks{Event,Throttle}Reasons
  const char* reasons_name = "nvmlDeviceGetCurrentClocksEventReasons"; // the name that was bound
  int (*ecc)(void*, int*, int*) = nullptr;                             // nvmlDeviceGetEccMode
  int (*mig)(void*, unsigned*, unsigned*) = nullptr;                   // nvmlDeviceGetMigMode
  int (*driver)(char*, unsigned) = nullptr;                            // nvmlSystemGetDriverVersion
  int (*vbios)(void*, char*, unsigned) = nullptr;                      // nvmlDeviceGetVbiosVersion
};

// NVML return codes the reading acts on (nvml.h).
constexpr int k_nvml_uninitialized = 1;
constexpr int k_nvml_not_supported = 3;
constexpr int k_nvml_gpu_is_lost = 15;

// What NVML answered for one device: ok (telemetry holds what was read, reason what was not),
// absent (library not loadable) or failed (no handle, init failed: detail says which call).
// session_rc: 1 (uninitialized) or 15 (GPU lost) when a call returned it, the sign that the kept
// NVML session must be rebuilt; 0 otherwise.
struct NvmlReading
{
  sdk::LibraryResult::State state = sdk::LibraryResult::State::absent;
  std::string detail;
  Telemetry telemetry;
  int session_rc = 0;
};

// One reading through calls on an initialised NVML: the handle by UUID (else index), then every
// field, each failing call leaving its field unread and adding "<call> returned <rc>" to reason.
NvmlReading read_nvml_device(const NvmlCalls& calls, const Device& device);

// read_nvml_device on the process's one NVML session (opened, bound and initialised on first use,
// rebuilt once when a call says the session is gone).
NvmlReading query_nvml_telemetry(const Device& device);

using NvmlTelemetryProbe = NvmlReading (*)(const Device&);

// read_telemetry with the NVML step injectable, so tests can exercise the nvidia-smi fallback.
Telemetry read_telemetry_with(const zl_host_api* host, const Device& device, NvmlTelemetryProbe probe);

// NVML, else nvidia-smi. Throws nothing it can avoid; the descriptor wraps it in
// sdk::guarded_telemetry all the same.
Telemetry read_telemetry(const zl_host_api* host, const Device& device);

} // namespace zl::backend_cuda
