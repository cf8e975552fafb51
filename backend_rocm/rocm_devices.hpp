// AMD device enumeration: AMD SMI (libamd_smi.so, opened at run time) first, then
// `amd-smi list/static --json`, then the deprecated `rocm-smi --json`.
// Facts and their sources: README.md in this folder.
#pragma once

#include <zl/backend_sdk.hpp>
#include <zl/sdk/visibility.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_rocm {

inline const std::vector<std::string>& amd_smi_list_argv()
{
  static const std::vector<std::string> argv = {"amd-smi", "list", "--json"};
  return argv;
}

inline const std::vector<std::string>& amd_smi_static_argv()
{
  static const std::vector<std::string> argv = {"amd-smi", "static", "--asic", "--vram", "--json"};
  return argv;
}

inline const std::vector<std::string>& rocm_smi_argv()
{
  static const std::vector<std::string> argv = {"rocm-smi", "--showproductname", "--showmeminfo",
                                                "vram",     "--showuniqueid",    "--json"};
  return argv;
}

// index: amd-smi "gpu" / rocm-smi "card<N>", physical, DRM order; uuid: amd-smi's 8-4-4-4-12
// UUID, or rocm-smi's "0x<16hex>" unique ID; name: market name / card series; memory_bytes: VRAM
// total; visibility_id: what ROCR_VISIBLE_DEVICES takes, "GPU-<16hex>", else the index.
using Device = sdk::Device;
using ParseResult = sdk::ParseResult; // error quotes the offending line or entry

// Joins `amd-smi list --json` (gpu, uuid) and `amd-smi static --asic --vram --json`
// (asic.market_name, asic.asic_serial, vram.size {value, unit}) on the gpu index.
ParseResult parse_amd_smi(std::string_view list_json, std::string_view static_json);

// Parses `rocm-smi --showproductname --showmeminfo vram --showuniqueid --json`: one object per
// "card<N>" with "Card Series" (else "Card SKU"), "VRAM Total Memory (B)" and "Unique ID".
ParseResult parse_rocm_smi(std::string_view json);

// The rocminfo spelling that ROCR_VISIBLE_DEVICES accepts: "0x5C88007D760374F3" or
// "5c88007d760374f3" -> "GPU-5c88007d760374f3". Empty when the serial is not hexadecimal.
std::string rocr_uuid(std::string_view serial);

// The ROCr UUID ("GPU-<16hex>") of the asic_serial in an amdsmi_asic_info_t that AMD SMI wrote
// into `buffer` (zeroed beforehand). The struct's layout changed between releases (market_name of
// 64 or 256 bytes, vendor_name added, asic_serial of 32 to 256 bytes), so each known offset of
// asic_serial is tried; exactly one must hold a hexadecimal serial. Empty otherwise.
std::string rocr_serial_in_asic_info(const unsigned char* buffer, size_t size);

// What AMD SMI answered (absent: libamd_smi.so could not be opened).
using LibraryResult = sdk::LibraryResult;

// Opens libamd_smi.so (else /opt/rocm/lib/libamd_smi.so) and lists the GPUs through AMD SMI.
LibraryResult query_amdsmi();

using LibraryProbe = sdk::LibraryProbe;

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// AMD SMI, else amd-smi, else rocm-smi.
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

// One ROCR_VISIBLE_DEVICES entry (docs/vendor-facts.md §3.2): an index in the unmasked DRM order,
// or a "GPU-<16hex>" UUID as rocminfo prints it; pinned by the GPU's ROCr UUID.
sdk::MaskEntry match_rocr_entry(std::string_view entry, const std::vector<Device>& devices);

// The masks the process inherited, applied in ROCm's order: ROCR_VISIBLE_DEVICES on the physical
// GPUs, then HIP_VISIBLE_DEVICES (else CUDA_VISIBLE_DEVICES, as PyTorch reads them) and
// GPU_DEVICE_ORDINAL, whose indices count the GPUs the layer beneath left. zl unsets the HIP-level
// variables in the child and pins ROCR_VISIBLE_DEVICES by UUID, so every layer must be honoured
// here. A GPU without a ROCr UUID cannot be pinned inside a mask and is left out (with a note).
sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices);

// The spec-sheet peaks of the GPUs this backend lists (rocm_peaks.cpp): the descriptor's peaks and
// peak_count (ABI 1.3). Internal to the module, as every symbol but its entry point.
const zl_peak* peaks();
size_t peak_count();

} // namespace zl::backend_rocm
