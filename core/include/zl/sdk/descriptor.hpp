// The descriptor: its defaults, the guard that keeps exceptions from crossing the ABI, and the
// module's one exported symbol (zl/backend_sdk.hpp says how the SDK's headers fit together).
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/text.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>

namespace zl::sdk {

// The empty string list, for descriptor fields that list nothing.
inline constexpr const char* k_no_strings[] = {nullptr};

// A descriptor of this ABI version with every list empty and every optional string "": set
// name, version, description, flaggems_vendor, torch_device and enumerate_devices (the loader
// refuses a module that leaves one NULL), then whatever else applies.
inline zl_backend_descriptor empty_descriptor()
{
  zl_backend_descriptor d{};
  d.abi_major = ZL_ABI_MAJOR;
  d.abi_minor = ZL_ABI_MINOR;
  d.struct_size = sizeof(zl_backend_descriptor);
  d.aliases = k_no_strings;
  d.torch_module = "";
  d.visibility_var = "";
  d.visibility_unset = k_no_strings;
  d.graph_class = "";
  d.capture = {k_no_strings, k_no_strings, k_no_strings};
  d.capture_deny_ops = k_no_strings;
  d.compat_rules = nullptr;
  d.compat_rule_count = 0;
  d.flagtree_token = "";
  d.peaks = nullptr; // no spec-sheet peaks: zl gives this backend's devices no %BW or %TFLOPS
  d.peak_count = 0;
  return d;
}

// One SKU's spec-sheet figures for the descriptor's peaks (ABI 1.3), written once: spelled()
// gives it each device name the vendor's tools report, e.g.
//   constexpr zl_peak k_x1 = sku_peak("Acme X1 80GB", 3000, 900, 60, "Acme X1 datasheet, https://…");
//   constexpr zl_peak k_table[] = {spelled("Acme X1", k_x1), spelled("X1", k_x1)};
constexpr zl_peak sku_peak(const char* sku, double bandwidth_gbps, double fp16_tflops, double fp32_tflops,
                           const char* source)
{
  return {nullptr, sku, bandwidth_gbps, fp16_tflops, fp32_tflops, source};
}

constexpr zl_peak spelled(const char* device_name, zl_peak peak)
{
  peak.device_name = device_name;
  return peak;
}

// Runs body() (which returns a zl_status) and turns any exception into ZL_ERR_INTERNAL with
// count 0 and "internal error while <doing>: <what>" in `field`, since nothing may be thrown
// across the ABI. The guard of guarded_enumerate and guarded_filter (zl/sdk/visibility.hpp).
template <typename Body, size_t N>
zl_status guarded_call(Body&& body, uint32_t& count, char (&field)[N], const char* doing) noexcept
{
  try {
    return body();
  } catch (const std::exception& e) {
    // Nothing here allocates: the exception may well be std::bad_alloc.
    count = 0;
    std::snprintf(field, N, "internal error while %s: %s", doing, e.what());
    return ZL_ERR_INTERNAL;
  } catch (...) {
    count = 0;
    std::snprintf(field, N, "internal error while %s (an exception of unknown type)", doing);
    return ZL_ERR_INTERNAL;
  }
}

// An enumerate_devices for the descriptor: runs Enumerate and turns any exception into
// ZL_ERR_INTERNAL with no devices and a reason.
template <zl_status (*Enumerate)(const zl_host_api*, zl_enumeration*)>
zl_status guarded_enumerate(const zl_host_api* host, zl_enumeration* out) noexcept
{
  return guarded_call([&] { return Enumerate(host, out); }, out->count, out->reason, "listing devices");
}

} // namespace zl::sdk

// The module's one exported symbol: defines zl_backend_get_descriptor (backend_abi.h) with C
// linkage and default visibility, returning a descriptor that `descriptor` initializes on the
// first call (the loader calls it once; every call returns the same pointer). Write it once, at
// file scope, after the function that builds the descriptor:
//   ZL_BACKEND_ENTRY(make_descriptor())
// Like UCX's UCT_COMPONENT_REGISTER, the one line a module adds to become one.
#define ZL_BACKEND_ENTRY(descriptor)                                                                                   \
  extern "C" ZL_BACKEND_EXPORT const zl_backend_descriptor* zl_backend_get_descriptor(void)                            \
  {                                                                                                                    \
    static const zl_backend_descriptor zl_backend_descriptor_ = (descriptor);                                          \
    return &zl_backend_descriptor_;                                                                                    \
  }
