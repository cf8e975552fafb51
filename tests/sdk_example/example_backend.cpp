// A third-party zl backend for a made-up vendor, "example", with two fake devices. It is written
// against the installed headers only (<zl/backend_abi.h> through <zl/backend_sdk.hpp>) and shows
// the shape every backend has: an enumerate function that collects zl::sdk::Device values and
// answers through zl::sdk::publish, and a descriptor exported by ZL_BACKEND_ENTRY as the module's
// one symbol, zl_backend_get_descriptor.
//
// EXAMPLE_DEVICES (read through the host, as a real backend reads its vendor's variables) sets
// how many devices it reports, 0 to 8; the default is 2.
#include <zl/backend_sdk.hpp>

#include <string>
#include <vector>

#ifndef ZL_BACKEND_NAME
#error "build this file with zl_add_backend(), which defines ZL_BACKEND_NAME"
#endif
#ifndef EXAMPLE_VERSION
#define EXAMPLE_VERSION "0.0.0"
#endif

namespace {

namespace sdk = zl::sdk;

constexpr uint64_t k_gib = uint64_t{1} << 30;

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  uint64_t count = 2;
  if (const char* wanted = host->get_env(host->ctx, "EXAMPLE_DEVICES")) {
    if (!sdk::parse_u64(wanted, count) || count > 8) {
      return sdk::fail(out, ZL_ERR_INTERNAL, "EXAMPLE_DEVICES=" + sdk::quote(wanted) + " is not a number from 0 to 8");
    }
  }
  std::vector<sdk::Device> devices;
  for (uint32_t i = 0; i < count; ++i) {
    sdk::Device d;
    d.index = i;
    d.uuid = "EXAMPLE-" + std::to_string(1000 + i);
    d.name = "Example Accelerator X" + std::to_string(i % 2 == 0 ? 1 : 2);
    d.memory_bytes = (16 + 16 * uint64_t{i}) * k_gib;
    d.visibility_id = std::to_string(i);
    devices.push_back(d);
  }
  return sdk::publish(out, devices, "example simulator", "", "example device");
}

const char* const k_aliases[] = {"demo", nullptr};
const char* const k_unset[] = {"CUDA_VISIBLE_DEVICES", nullptr};

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d = sdk::empty_descriptor(); // ABI version and sizes of this header
  d.name = ZL_BACKEND_NAME;
  d.aliases = k_aliases;
  d.version = EXAMPLE_VERSION;
  d.description = "example vendor of the zl SDK: two simulated devices";
  d.flaggems_vendor = "example";
  d.torch_device = "example";
  d.visibility_var = "EXAMPLE_VISIBLE_DEVICES";
  d.visibility_unset = k_unset;
  d.enumerate_devices = sdk::guarded_enumerate<enumerate>;
  return d;
}

} // namespace

ZL_BACKEND_ENTRY(make_descriptor())
