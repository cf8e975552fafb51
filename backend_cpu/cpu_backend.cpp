// The host backend: the default where no accelerator is found, and the template a new vendor
// copies (see README.md in this folder).
#include "cpu_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace {

const char* const k_aliases[] = {"host", nullptr};
const char* const k_none[] = {nullptr};

zl_status enumerate_devices(const zl_host_api* host, zl_enumeration* out) noexcept
{
  try {
    return zl::backend_cpu::enumerate(host, out);
  } catch (...) {
    zl::sdk::copy_field(out->reason, "reading /proc failed");
    return ZL_ERR_INTERNAL;
  }
}

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d{};
  d.abi_major = ZL_ABI_MAJOR;
  d.abi_minor = ZL_ABI_MINOR;
  d.struct_size = sizeof(zl_backend_descriptor);
  d.name = "cpu";
  d.aliases = k_aliases;
  d.version = "0.1.0";
  d.description = "host processors; no accelerator, direct timing";
  d.flaggems_vendor = "cpu";
  d.torch_module = "";
  d.torch_device = "cpu";
  d.visibility_var = "";
  d.visibility_unset = k_none;
  d.capabilities = ZL_CAP_HOST_FALLBACK;
  d.graph_class = "";
  d.capture = {k_none, k_none, k_none};
  d.capture_deny_ops = k_none;
  d.compat_rules = nullptr;
  d.compat_rule_count = 0;
  d.flagtree_token = "";
  d.enumerate_devices = enumerate_devices;
  return d;
}

const zl_backend_descriptor k_descriptor = make_descriptor();

} // namespace

extern "C" ZL_BACKEND_EXPORT const zl_backend_descriptor* zl_backend_get_descriptor(void)
{
  return &k_descriptor;
}
