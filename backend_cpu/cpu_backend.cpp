// The host backend: the default where no accelerator is found, and the template a new vendor
// copies (see README.md in this folder).
#include "cpu_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace {

const char* const k_aliases[] = {"host", nullptr};

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d = zl::sdk::empty_descriptor();
  d.name = "cpu";
  d.aliases = k_aliases;
  d.version = "0.1.0";
  d.description = "host processors; no accelerator, direct timing";
  d.flaggems_vendor = "cpu";
  d.torch_device = "cpu";
  d.capabilities = ZL_CAP_HOST_FALLBACK;
  d.enumerate_devices = zl::sdk::guarded_enumerate<zl::backend_cpu::enumerate>;
  // sysfs clocks and temperature, the kernel release (README.md in this folder).
  d.read_telemetry = zl::sdk::guarded_telemetry<zl::backend_cpu::read_telemetry>;
  // No spec-sheet peaks (peaks NULL, from empty_descriptor): a host processor's bandwidth and
  // throughput depend on the machine, not on a name a sheet could give figures for.
  return d;
}

} // namespace

ZL_BACKEND_ENTRY(make_descriptor())
