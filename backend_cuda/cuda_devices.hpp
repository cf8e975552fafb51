// NVIDIA device enumeration: NVML (libnvidia-ml.so.1, opened at run time) first, nvidia-smi's
// CSV query as the fallback. Facts and their sources: README.md in this folder.
#pragma once

#include <zl/backend_abi.h>

#include <cstdint>
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

struct Device
{
  uint32_t index = 0;        // NVML / nvidia-smi index: physical, ignores CUDA_VISIBLE_DEVICES
  std::string uuid;          // "GPU-…" (or "MIG-…")
  std::string name;          // may contain spaces, never commas
  uint64_t memory_bytes = 0; // 0 when the tool reports [N/A]
  std::string visibility_id; // what CUDA_VISIBLE_DEVICES takes: the UUID
};

struct ParseResult
{
  std::vector<Device> devices;
  std::string error; // empty on success; otherwise quotes the offending line
  bool ok() const { return error.empty(); }
};

// Parses `nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits`.
// Empty output is an empty list; a line that is not four comma-separated fields, an index that is
// not a number, or output that ends mid-line is an error quoting that line.
ParseResult parse_nvidia_smi_csv(std::string_view text);

// What the management library answered.
struct LibraryResult
{
  enum class State {
    absent, // the library could not be opened: detail is dlerror()
    failed, // opened, but a symbol was missing or a call failed: detail says which
    ok      // devices holds the answer (possibly none)
  };
  State state = State::absent;
  std::string detail;
  std::vector<Device> devices;
};

// Opens libnvidia-ml.so.1 with dlopen and lists the devices through NVML.
LibraryResult query_nvml();

using LibraryProbe = LibraryResult (*)();

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// NVML, else nvidia-smi. Never throws past the backend entry point (it wraps this).
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

} // namespace zl::backend_cuda
