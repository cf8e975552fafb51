// AMD SMI through dlopen: no ROCm SDK at build time, no hard dependency at run time.
// Prototypes: ROCm/amdsmi include/amd_smi/amdsmi.h (docs/vendor-facts.md §3.1).
//
// Only calls whose arguments are plain values are made with a fixed layout: the UUID string, the
// VRAM total and the socket/processor handles. amdsmi_asic_info_t changed layout between
// releases (field widths, vendor_name inserted before asic_serial), so it is read into an
// oversized zeroed buffer and market_name, its first member in every release, is taken; the
// serial is found by rocr_serial_in_asic_info (rocm_devices.hpp) at the offsets the known layouts
// put it. A GPU is pinned by GPU-<serial>, never by AMD SMI's index, whose order is not always
// ROCr's (MI300-class partition modes); without a readable serial the library does not answer
// and amd-smi, which prints the serial, is asked instead.
#include "rocm_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_rocm {

namespace {

constexpr uint64_t k_init_amd_gpus = uint64_t{1} << 1; // AMDSMI_INIT_AMD_GPUS
constexpr int k_mem_type_vram = 0;                     // AMDSMI_MEM_TYPE_VRAM
constexpr unsigned k_uuid_size = 96;                   // more than AMDSMI_GPU_UUID_SIZE
constexpr size_t k_market_name_size = 256;             // the widest market_name in any release
constexpr size_t k_asic_buffer = 8192;                 // several times any amdsmi_asic_info_t

// amdsmi_status_t is a C enum (int); 0 is AMDSMI_STATUS_SUCCESS. Handles are opaque pointers.
using amdsmi_status = int;
using init_fn = amdsmi_status (*)(uint64_t);
using shutdown_fn = amdsmi_status (*)();
using sockets_fn = amdsmi_status (*)(uint32_t*, void**);
using processors_fn = amdsmi_status (*)(void*, uint32_t*, void**);
using uuid_fn = amdsmi_status (*)(void*, unsigned*, char*);
using memory_fn = amdsmi_status (*)(void*, int, uint64_t*);
using asic_fn = amdsmi_status (*)(void*, void*);

struct Api
{
  sockets_fn sockets = nullptr;
  processors_fn processors = nullptr;
  uuid_fn uuid = nullptr;
  memory_fn memory = nullptr;
  asic_fn asic = nullptr;
};

// Every GPU processor handle, socket by socket; the order is AMD SMI's (and amd-smi's) index.
std::string list_handles(const Api& api, std::vector<void*>& handles)
{
  uint32_t n_sockets = 0;
  if (const amdsmi_status rc = api.sockets(&n_sockets, nullptr); rc != 0) {
    return sdk::call_failed("amdsmi_get_socket_handles", rc);
  }
  std::vector<void*> sockets(n_sockets);
  if (const amdsmi_status rc = api.sockets(&n_sockets, sockets.data()); rc != 0) {
    return sdk::call_failed("amdsmi_get_socket_handles", rc);
  }
  sockets.resize(n_sockets);
  for (void* socket : sockets) {
    uint32_t n = 0;
    if (const amdsmi_status rc = api.processors(socket, &n, nullptr); rc != 0) {
      return sdk::call_failed("amdsmi_get_processor_handles", rc);
    }
    std::vector<void*> found(n);
    if (const amdsmi_status rc = api.processors(socket, &n, found.data()); rc != 0) {
      return sdk::call_failed("amdsmi_get_processor_handles", rc);
    }
    found.resize(n);
    handles.insert(handles.end(), found.begin(), found.end());
  }
  return {};
}

std::string describe(const Api& api, void* handle, uint32_t index, Device& d)
{
  char uuid[k_uuid_size] = {};
  unsigned uuid_length = k_uuid_size;
  if (const amdsmi_status rc = api.uuid(handle, &uuid_length, uuid); rc != 0) {
    return sdk::call_failed("amdsmi_get_gpu_device_uuid", rc);
  }
  uint64_t total = 0;
  if (const amdsmi_status rc = api.memory(handle, k_mem_type_vram, &total); rc != 0) {
    return sdk::call_failed("amdsmi_get_gpu_memory_total", rc);
  }
  std::vector<char> asic(k_asic_buffer, '\0'); // operator new's alignment suits any of its fields
  if (const amdsmi_status rc = api.asic(handle, asic.data()); rc != 0) {
    return sdk::call_failed("amdsmi_get_gpu_asic_info", rc);
  }
  const char* market = asic.data();
  d.index = index;
  d.uuid = sdk::text_field(uuid);
  d.name = sdk::text_field(market, k_market_name_size);
  d.memory_bytes = total;
  d.visibility_id = rocr_serial_in_asic_info(reinterpret_cast<const unsigned char*>(asic.data()), asic.size());
  if (d.visibility_id.empty()) {
    return "amdsmi_get_gpu_asic_info gave no readable asic_serial for GPU " + std::to_string(index) +
           ", and AMD SMI's index is not ROCr's in every partition mode, so the GPU could not be pinned";
  }
  return {};
}

} // namespace

std::string rocr_serial_in_asic_info(const unsigned char* buffer, size_t size)
{
  // asic_serial's offset in each layout (amdsmi.h across releases): market_name[64] without
  // vendor_name (84); market_name[64] + vendor_name[64] (148); market_name[256] +
  // vendor_name[64] (340); market_name[256] + vendor_name[256] (532).
  constexpr size_t k_offsets[] = {84, 148, 340, 532};
  constexpr size_t k_field = 32; // the shortest asic_serial; a serial is 16 hex digits
  std::string found;
  for (const size_t offset : k_offsets) {
    if (offset + k_field > size) {
      continue;
    }
    const auto text = sdk::text_field(reinterpret_cast<const char*>(buffer + offset), k_field);
    const auto hex = sdk::starts_with(text, "0x") || sdk::starts_with(text, "0X") ? text.substr(2) : text;
    if (hex.size() < 8 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      continue;
    }
    const auto uuid = rocr_uuid(text);
    if (!found.empty() && found != uuid) {
      return {}; // two layouts fit: do not guess
    }
    found = uuid;
  }
  return found;
}

LibraryResult query_amdsmi()
{
  sdk::Library lib({"libamd_smi.so", "/opt/rocm/lib/libamd_smi.so"});
  init_fn init = nullptr;
  shutdown_fn shutdown = nullptr;
  Api api;
  lib.bind("amdsmi_init", init);
  lib.bind("amdsmi_shut_down", shutdown);
  lib.bind("amdsmi_get_socket_handles", api.sockets);
  lib.bind("amdsmi_get_processor_handles", api.processors);
  lib.bind("amdsmi_get_gpu_device_uuid", api.uuid);
  lib.bind("amdsmi_get_gpu_memory_total", api.memory);
  lib.bind("amdsmi_get_gpu_asic_info", api.asic);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  result.state = LibraryResult::State::failed; // until every call has answered
  // usable() saw every bind() find its function; each is checked again before any call all the
  // same, so no path here calls a null pointer (the static analyzer cannot see through usable()).
  const char* unbound = init == nullptr             ? "amdsmi_init"
                        : shutdown == nullptr       ? "amdsmi_shut_down"
                        : api.sockets == nullptr    ? "amdsmi_get_socket_handles"
                        : api.processors == nullptr ? "amdsmi_get_processor_handles"
                        : api.uuid == nullptr       ? "amdsmi_get_gpu_device_uuid"
                        : api.memory == nullptr     ? "amdsmi_get_gpu_memory_total"
                        : api.asic == nullptr       ? "amdsmi_get_gpu_asic_info"
                                                    : nullptr;
  if (unbound != nullptr) {
    result.detail = lib.soname() + " has no " + unbound;
    return result;
  }
  if (const amdsmi_status rc = init(k_init_amd_gpus); rc != 0) {
    result.detail = sdk::call_failed("amdsmi_init", rc);
    return result;
  }
  std::vector<void*> handles;
  result.detail = list_handles(api, handles);
  for (size_t i = 0; i < handles.size() && result.detail.empty(); ++i) {
    Device d;
    result.detail = describe(api, handles[i], static_cast<uint32_t>(i), d);
    if (!result.detail.empty()) {
      result.detail += " for GPU " + std::to_string(i);
    } else {
      result.devices.push_back(std::move(d));
    }
  }
  shutdown();
  if (!result.detail.empty()) {
    result.devices.clear();
    return result;
  }
  result.state = LibraryResult::State::ok;
  return result;
}

} // namespace zl::backend_rocm
