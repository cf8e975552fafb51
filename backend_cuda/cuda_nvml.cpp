// NVML through dlopen: no CUDA SDK at build time, no hard dependency at run time.
// Prototypes: NVIDIA/go-nvml gen/nvml/nvml.h (docs/vendor-facts.md §1.1).
#include "cuda_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_cuda {

namespace {

constexpr const char* k_library = "libnvidia-ml.so.1";
constexpr unsigned k_buffer_size = 96; // NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE

// nvmlReturn_t is a C enum (int); 0 is NVML_SUCCESS. nvmlDevice_t is an opaque pointer.
using nvml_return = int;
using nvml_device = void*;
struct nvml_memory
{
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

using init_fn = nvml_return (*)();
using shutdown_fn = nvml_return (*)();
using count_fn = nvml_return (*)(unsigned*);
using handle_fn = nvml_return (*)(unsigned, nvml_device*);
using string_fn = nvml_return (*)(nvml_device, char*, unsigned);
using memory_fn = nvml_return (*)(nvml_device, nvml_memory*);

} // namespace

LibraryResult query_nvml()
{
  sdk::Library lib({k_library});
  init_fn init = nullptr;
  shutdown_fn shutdown = nullptr;
  count_fn count = nullptr;
  handle_fn by_index = nullptr;
  string_fn get_name = nullptr;
  string_fn get_uuid = nullptr;
  memory_fn get_memory = nullptr;
  lib.bind("nvmlInit_v2", init);
  lib.bind("nvmlShutdown", shutdown);
  lib.bind("nvmlDeviceGetCount_v2", count);
  lib.bind("nvmlDeviceGetHandleByIndex_v2", by_index);
  lib.bind("nvmlDeviceGetName", get_name);
  lib.bind("nvmlDeviceGetUUID", get_uuid);
  lib.bind("nvmlDeviceGetMemoryInfo", get_memory);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  result.state = LibraryResult::State::failed; // until every call has answered
  // usable() saw every bind() find its function; each is checked again before any call all the
  // same, so no path here calls a null pointer (the static analyzer cannot see through usable()).
  const char* unbound = init == nullptr         ? "nvmlInit_v2"
                        : shutdown == nullptr   ? "nvmlShutdown"
                        : count == nullptr      ? "nvmlDeviceGetCount_v2"
                        : by_index == nullptr   ? "nvmlDeviceGetHandleByIndex_v2"
                        : get_name == nullptr   ? "nvmlDeviceGetName"
                        : get_uuid == nullptr   ? "nvmlDeviceGetUUID"
                        : get_memory == nullptr ? "nvmlDeviceGetMemoryInfo"
                                                : nullptr;
  if (unbound != nullptr) {
    result.detail = lib.soname() + " has no " + unbound;
    return result;
  }

  if (const nvml_return rc = init(); rc != 0) {
    result.detail = sdk::call_failed("nvmlInit_v2", rc);
    return result;
  }
  unsigned n = 0;
  if (const nvml_return rc = count(&n); rc != 0) {
    result.detail = sdk::call_failed("nvmlDeviceGetCount_v2", rc);
    shutdown();
    return result;
  }
  for (unsigned i = 0; i < n; ++i) {
    nvml_device dev = nullptr;
    char name[k_buffer_size] = {};
    char uuid[k_buffer_size] = {};
    nvml_memory mem{};
    nvml_return rc = by_index(i, &dev);
    const char* step = "nvmlDeviceGetHandleByIndex_v2";
    if (rc == 0) {
      step = "nvmlDeviceGetName";
      rc = get_name(dev, name, k_buffer_size);
    }
    if (rc == 0) {
      step = "nvmlDeviceGetUUID";
      rc = get_uuid(dev, uuid, k_buffer_size);
    }
    if (rc == 0) {
      step = "nvmlDeviceGetMemoryInfo";
      rc = get_memory(dev, &mem);
    }
    if (rc != 0) {
      result.detail = sdk::call_failed(step, rc) + " for device " + std::to_string(i);
      result.devices.clear();
      shutdown();
      return result;
    }
    Device d;
    d.index = i;
    d.uuid = sdk::text_field(uuid);
    d.name = sdk::text_field(name);
    d.memory_bytes = static_cast<uint64_t>(mem.total);
    d.visibility_id = d.uuid;
    result.devices.push_back(std::move(d));
  }
  shutdown();
  result.state = LibraryResult::State::ok;
  return result;
}

} // namespace zl::backend_cuda
