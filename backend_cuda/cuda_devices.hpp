// NVIDIA device enumeration: NVML (libnvidia-ml.so.1, opened at run time) first, nvidia-smi's
// CSV query as the fallback. Facts and their sources: README.md in this folder.
#pragma once

#include <zl/backend_sdk.hpp>
#include <zl/sdk/visibility.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_cuda {

// The nvidia-smi invocation the fallback runs; memory.total comes in MiB (nounits).
inline const std::vector<std::string>& nvidia_smi_argv()
{
  static const std::vector<std::string> argv = {"nvidia-smi", "--query-gpu=index,uuid,name,memory.total",
                                                "--format=csv,noheader,nounits"};
  return argv;
}

// index: NVML / nvidia-smi index, physical, ignores CUDA_VISIBLE_DEVICES; uuid: "GPU-…" (or
// "MIG-…"); name: may contain spaces, never commas; memory_bytes: 0 when the tool reports [N/A];
// visibility_id: what CUDA_VISIBLE_DEVICES takes, the UUID.
using Device = sdk::Device;
using ParseResult = sdk::ParseResult;

// Parses `nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits`.
// Empty output is an empty list; a line that is not four comma-separated fields, an index that is
// not a number, or output that ends mid-line is an error quoting that line.
ParseResult parse_nvidia_smi_csv(std::string_view text);

// What NVML answered (absent: libnvidia-ml.so.1 could not be opened).
using LibraryResult = sdk::LibraryResult;

// Opens libnvidia-ml.so.1 with dlopen and lists the devices through NVML.
LibraryResult query_nvml();

using LibraryProbe = sdk::LibraryProbe;

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// NVML, else nvidia-smi. Never throws past the backend entry point (it wraps this).
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

// One CUDA_VISIBLE_DEVICES entry (docs/vendor-facts.md §1.2): an index in nvidia-smi order,
// "GPU-<uuid>" or a unique prefix of it, or "MIG-GPU-<uuid>/<gi>/<ci>" (a MIG instance of that GPU,
// pinned by the entry itself so that the child never gets the whole GPU). Other forms are invalid
// here.
sdk::MaskEntry match_cuda_entry(std::string_view entry, const std::vector<Device>& devices);

// The CUDA_VISIBLE_DEVICES mask the process inherited, read as CUDA reads it: the empty value
// hides every device, and the first invalid entry ends the list.
sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices);

// The spec-sheet peaks of the GPUs this backend lists (cuda_peaks.cpp): the descriptor's peaks and
// peak_count (ABI 1.3). Internal to the module, as every symbol but its entry point.
const zl_peak* peaks();
size_t peak_count();

} // namespace zl::backend_cuda
