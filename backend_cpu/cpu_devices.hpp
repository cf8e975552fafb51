// Host "device" enumeration: the processors and memory of this machine, from /proc.
#pragma once

#include <zl/backend_abi.h>

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

} // namespace zl::backend_cpu
