// MTML through dlopen: no MUSA SDK at build time, no hard dependency at run time.
// Prototypes: yeahdongcn/mthreads-ml-py mtml_2.2.0.h (vendors.md §2.1).
#include "musa_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_musa {

namespace {

// Tried in order: the name the python binding loads, then the versioned one a Go binding uses.
constexpr const char* k_libraries[] = {"libmtml.so", "libmtml.so.2"};
constexpr unsigned k_uuid_size = 48; // MTML_DEVICE_UUID_BUFFER_SIZE
constexpr unsigned k_name_size = 32; // MTML_DEVICE_NAME_BUFFER_SIZE

// MtmlReturn is a C enum (int); 0 is MTML_SUCCESS. MtmlLibrary, MtmlDevice and MtmlMemory are
// opaque, handled here as void*.
using mtml_return = int;
using lib_init_fn = mtml_return (*)(void**);
using lib_shutdown_fn = mtml_return (*)(void*);
using lib_count_fn = mtml_return (*)(const void*, unsigned*);
using lib_device_fn = mtml_return (*)(const void*, unsigned, void**);
using dev_string_fn = mtml_return (*)(const void*, char*, unsigned);
using dev_memory_fn = mtml_return (*)(const void*, void**);
using mem_total_fn = mtml_return (*)(const void*, unsigned long long*);

} // namespace

LibraryResult query_mtml()
{
  sdk::Library lib({k_libraries[0], k_libraries[1]});
  lib_init_fn init = nullptr;
  lib_shutdown_fn shutdown = nullptr;
  lib_count_fn count = nullptr;
  lib_device_fn by_index = nullptr;
  dev_string_fn get_uuid = nullptr;
  dev_string_fn get_name = nullptr;
  dev_memory_fn init_memory = nullptr;
  mem_total_fn get_total = nullptr;
  lib.bind("mtmlLibraryInit", init);
  lib.bind("mtmlLibraryShutDown", shutdown);
  lib.bind("mtmlLibraryCountDevice", count);
  lib.bind("mtmlLibraryInitDeviceByIndex", by_index);
  lib.bind("mtmlDeviceGetUUID", get_uuid);
  lib.bind("mtmlDeviceGetName", get_name);
  lib.bind("mtmlDeviceInitMemory", init_memory);
  lib.bind("mtmlMemoryGetTotal", get_total);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  result.state = LibraryResult::State::failed; // until every call has answered

  void* mtml = nullptr;
  if (const mtml_return rc = init(&mtml); rc != 0 || mtml == nullptr) {
    result.detail = sdk::call_failed("mtmlLibraryInit", rc);
    return result;
  }
  unsigned n = 0;
  if (const mtml_return rc = count(mtml, &n); rc != 0) {
    result.detail = sdk::call_failed("mtmlLibraryCountDevice", rc);
    shutdown(mtml);
    return result;
  }
  for (unsigned i = 0; i < n; ++i) {
    void* dev = nullptr;
    void* mem = nullptr;
    char uuid[k_uuid_size] = {};
    char name[k_name_size] = {};
    unsigned long long total = 0;
    const char* step = "mtmlLibraryInitDeviceByIndex";
    mtml_return rc = by_index(mtml, i, &dev);
    if (rc == 0) {
      step = "mtmlDeviceGetUUID";
      rc = get_uuid(dev, uuid, k_uuid_size);
    }
    if (rc == 0) {
      step = "mtmlDeviceGetName";
      rc = get_name(dev, name, k_name_size);
    }
    if (rc == 0) {
      step = "mtmlDeviceInitMemory";
      rc = init_memory(dev, &mem);
    }
    if (rc == 0) {
      step = "mtmlMemoryGetTotal";
      rc = get_total(mem, &total);
    }
    if (rc != 0) {
      result.detail = sdk::call_failed(step, rc) + " for device " + std::to_string(i);
      result.devices.clear();
      shutdown(mtml);
      return result;
    }
    Device d;
    d.index = i;
    d.uuid = sdk::text_field(uuid);
    d.name = sdk::text_field(name);
    d.memory_bytes = static_cast<uint64_t>(total); // MTML reports bytes
    d.visibility_id = std::to_string(i);
    result.devices.push_back(std::move(d));
  }
  shutdown(mtml);
  result.state = LibraryResult::State::ok;
  return result;
}

} // namespace zl::backend_musa
