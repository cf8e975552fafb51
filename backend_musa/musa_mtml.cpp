// MTML through dlopen: no MUSA SDK at build time, no hard dependency at run time.
// Prototypes: yeahdongcn/mthreads-ml-py mtml_2.2.0.h (docs/vendor-facts.md §2.1).
#include "musa_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_musa {

namespace {

// Tried in order: the name the python binding loads, then the versioned one a Go binding uses.
constexpr const char* k_libraries[] = {"libmtml.so", "libmtml.so.2"};
constexpr unsigned k_uuid_size = 48; // MTML_DEVICE_UUID_BUFFER_SIZE
constexpr unsigned k_name_size = 32; // MTML_DEVICE_NAME_BUFFER_SIZE

} // namespace

LibraryResult query_mtml_with(const MtmlApi& api)
{
  LibraryResult result;
  result.state = LibraryResult::State::failed; // until every call has answered
  // query_mtml's usable() saw every bind() find its function, but the API is injectable: a null
  // one is named as a missing symbol is, never called (free_memory alone is optional).
  const char* unbound = api.init == nullptr          ? "mtmlLibraryInit"
                        : api.shutdown == nullptr    ? "mtmlLibraryShutDown"
                        : api.count == nullptr       ? "mtmlLibraryCountDevice"
                        : api.by_index == nullptr    ? "mtmlLibraryInitDeviceByIndex"
                        : api.get_uuid == nullptr    ? "mtmlDeviceGetUUID"
                        : api.get_name == nullptr    ? "mtmlDeviceGetName"
                        : api.init_memory == nullptr ? "mtmlDeviceInitMemory"
                        : api.get_total == nullptr   ? "mtmlMemoryGetTotal"
                                                     : nullptr;
  if (unbound != nullptr) {
    result.detail = std::string("MTML has no ") + unbound;
    return result;
  }
  void* mtml = nullptr;
  if (const mtml_return rc = api.init(&mtml); rc != 0 || mtml == nullptr) {
    result.detail = sdk::call_failed("mtmlLibraryInit", rc);
    return result;
  }
  unsigned n = 0;
  if (const mtml_return rc = api.count(mtml, &n); rc != 0) {
    result.detail = sdk::call_failed("mtmlLibraryCountDevice", rc);
    api.shutdown(mtml);
    return result;
  }
  for (unsigned i = 0; i < n; ++i) {
    void* dev = nullptr;
    void* mem = nullptr;
    char uuid[k_uuid_size] = {};
    char name[k_name_size] = {};
    unsigned long long total = 0;
    const char* step = "mtmlLibraryInitDeviceByIndex";
    mtml_return rc = api.by_index(mtml, i, &dev);
    if (rc == 0) {
      step = "mtmlDeviceGetUUID";
      rc = api.get_uuid(dev, uuid, k_uuid_size);
    }
    if (rc == 0) {
      step = "mtmlDeviceGetName";
      rc = api.get_name(dev, name, k_name_size);
    }
    if (rc == 0) {
      step = "mtmlDeviceInitMemory";
      rc = api.init_memory(dev, &mem);
    }
    if (rc == 0) {
      step = "mtmlMemoryGetTotal";
      rc = api.get_total(mem, &total);
    }
    // Every memory object initialised is freed, on failure too. Newer headers deprecate
    // mtmlDeviceFreeMemory as "not required anymore", so it is called only where it exists.
    if (mem != nullptr && api.free_memory != nullptr) {
      api.free_memory(mem);
    }
    if (rc != 0) {
      result.detail = sdk::call_failed(step, rc) + " for device " + std::to_string(i);
      result.devices.clear();
      api.shutdown(mtml);
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
  api.shutdown(mtml);
  result.state = LibraryResult::State::ok;
  return result;
}

LibraryResult query_mtml()
{
  sdk::Library lib({k_libraries[0], k_libraries[1]});
  MtmlApi api;
  lib.bind("mtmlLibraryInit", api.init);
  lib.bind("mtmlLibraryShutDown", api.shutdown);
  lib.bind("mtmlLibraryCountDevice", api.count);
  lib.bind("mtmlLibraryInitDeviceByIndex", api.by_index);
  lib.bind("mtmlDeviceGetUUID", api.get_uuid);
  lib.bind("mtmlDeviceGetName", api.get_name);
  lib.bind("mtmlDeviceInitMemory", api.init_memory);
  lib.bind("mtmlMemoryGetTotal", api.get_total);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  lib.bind("mtmlDeviceFreeMemory", api.free_memory); // optional: deprecated in newer releases
  return query_mtml_with(api);
}

} // namespace zl::backend_musa
