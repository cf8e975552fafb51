#include "cpu_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <fstream>
#include <sstream>
#include <thread>

namespace zl::backend_cpu {

namespace {

std::string read_file(const char* path)
{
  std::ifstream in(path);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

} // namespace

void parse_cpuinfo(std::string_view text, HostInfo& info)
{
  for (auto line : sdk::lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    const auto key = sdk::trim(line.substr(0, colon));
    const auto value = sdk::trim(line.substr(colon + 1));
    if (key == "processor") {
      ++info.logical;
    } else if (info.model.empty() && (key == "model name" || key == "Model name" || key == "cpu model")) {
      info.model = std::string(value);
    }
  }
}

uint64_t parse_meminfo_total(std::string_view text)
{
  for (auto line : sdk::lines(text)) {
    if (!sdk::starts_with(line, "MemTotal:")) {
      continue;
    }
    auto rest = sdk::trim(line.substr(9));
    const auto space = rest.find(' ');
    uint64_t kib = 0;
    if (!sdk::parse_u64(rest.substr(0, space), kib)) {
      return 0;
    }
    const auto unit = space == std::string_view::npos ? std::string_view{} : sdk::trim(rest.substr(space));
    return unit == "kB" || unit.empty() ? kib * 1024 : 0;
  }
  return 0;
}

zl_status enumerate(const zl_host_api* /*host*/, zl_enumeration* out)
{
  HostInfo info;
  parse_cpuinfo(read_file("/proc/cpuinfo"), info);
  if (info.logical == 0) {
    info.logical = std::thread::hardware_concurrency();
  }
  if (info.model.empty()) {
    info.model = "host processor";
  }
  info.memory_bytes = parse_meminfo_total(read_file("/proc/meminfo"));
  info.machine_id = std::string(sdk::trim(read_file("/etc/machine-id")));

  sdk::Device host;
  host.index = 0;
  host.memory_bytes = info.memory_bytes;
  host.uuid = "host-" + (info.machine_id.empty() ? std::string("unknown") : info.machine_id);
  host.name = info.model + " (" + std::to_string(info.logical) + " logical processors)";
  return sdk::publish(out, {host}, "/proc/cpuinfo", "");
}

} // namespace zl::backend_cpu
