// Host "device" enumeration: the processors and memory of this machine, from /proc; and its
// telemetry, from /sys (cpu_telemetry.cpp).
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/telemetry.hpp>

#include <string>
#include <string_view>

namespace zl::backend_cpu {

struct HostInfo
{
  std::string model;    // "model name" of the first processor, or the architecture
  unsigned logical = 0; // logical processors
  uint64_t memory_bytes = 0;
  std::string machine_id;
};

// Parses /proc/cpuinfo text: the model and the number of "processor" entries.
void parse_cpuinfo(std::string_view text, HostInfo& info);

// Parses /proc/meminfo text: MemTotal in bytes; 0 when absent or malformed.
uint64_t parse_meminfo_total(std::string_view text);

// Reads /proc and /etc/machine-id and fills one device: the host.
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

// The host's state under a sysfs root (normally "/sys"; tests build a fake tree): the mean of
// cpu*/cpufreq/scaling_cur_freq as the SM clock, the highest cpuinfo_max_freq as its maximum, the
// x86_pkg_temp thermal zone (else the hottest zone) as the temperature, and kernel_release as
// the driver version ("" leaves it unread). A file that is absent or unparsable leaves its field
// unread, and the reason names it. Power, memory clock, throttle, ECC, MIG and firmware are
// never read.
sdk::Telemetry read_host_telemetry(const std::string& sys_root, const std::string& kernel_release);

// read_host_telemetry on /sys with uname's release. The descriptor wraps it in
// sdk::guarded_telemetry.
sdk::Telemetry read_telemetry(const zl_host_api* host, const sdk::Device& device);

} // namespace zl::backend_cpu
