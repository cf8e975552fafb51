#include "cpu_devices.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_cpu;

TEST_CASE("zl::backend_cpu::parse_cpuinfo")
{
  HostInfo info;
  parse_cpuinfo("processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\n\nprocessor\t: 1\nmodel name\t: Test CPU @ 3.0GHz\n",
                info);
  CHECK(info.logical == 2);
  CHECK(info.model == "Test CPU @ 3.0GHz");
  HostInfo empty;
  parse_cpuinfo("garbage without colons\n", empty);
  CHECK(empty.logical == 0);
  CHECK(empty.model.empty());
}

TEST_CASE("zl::backend_cpu::parse_meminfo_total")
{
  CHECK(parse_meminfo_total("MemTotal:       24576000 kB\nMemFree: 1 kB\n") == 24576000ULL * 1024);
  CHECK(parse_meminfo_total("MemFree: 1 kB\n") == 0);
  CHECK(parse_meminfo_total("MemTotal: lots kB\n") == 0);
}

TEST_CASE("zl::backend_cpu::enumerate")
{
  zl_device_info devices[2]{};
  zl_enumeration out{};
  out.struct_size = sizeof(out);
  out.capacity = 2;
  out.devices = devices;
  REQUIRE(enumerate(nullptr, &out) == ZL_OK);
  CHECK(out.count == 1);
  CHECK(std::string(devices[0].uuid).rfind("host-", 0) == 0);
  CHECK(devices[0].memory_bytes > 0);
  CHECK(std::string(devices[0].visibility_id).empty());
}
