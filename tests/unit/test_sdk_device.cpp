#include "fake_vendor_host.hpp"

#include <zl/sdk/device.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace zl;

namespace {

bool mib(std::string_view s, uint64_t& bytes)
{
  uint64_t n = 0;
  if (!sdk::parse_u64(s, n)) {
    return false;
  }
  bytes = n << 20;
  return true;
}

sdk::ParseResult parse(std::string_view text)
{
  return sdk::parse_query_gpu_csv(text, mib, "number of MiB");
}

} // namespace

TEST_CASE("zl::sdk::parse_query_gpu_csv")
{
  const auto r = parse("index, uuid, name, memory.total [MiB]\n0, GPU-a, H200 NVL, 2\n1, GPU-b, H200, 1\n");
  REQUIRE(r.ok());
  REQUIRE(r.devices.size() == 2);
  CHECK(r.devices[0].index == 0);
  CHECK(r.devices[0].uuid == "GPU-a");
  CHECK(r.devices[0].name == "H200 NVL");
  CHECK(r.devices[0].memory_bytes == (2u << 20));
  CHECK(r.devices[1].visibility_id.empty()); // left to the caller

  CHECK(parse("").devices.empty());
  CHECK(parse(" \n").ok());
  CHECK(parse("0, GPU-a, H200, 2").error == "output ends mid-line at line 1 '0, GPU-a, H200, 2'");
  CHECK(parse("0, GPU-a, H200\n").error == "line 1 '0, GPU-a, H200' has 3 fields, expected 4 (index, uuid, name, "
                                           "memory.total)");
  // An empty field is a field: the count stays exact.
  CHECK(parse("0, , H200, 2\n").error == "line 1 '0, , H200, 2': empty uuid or name");
  CHECK(parse("x, GPU-a, H200, 2\n").error == "line 1 'x, GPU-a, H200, 2': index 'x' is not a number");
  CHECK(parse("0, GPU-a, H200, [N/A]\n").error ==
        "line 1 '0, GPU-a, H200, [N/A]': memory.total '[N/A]' is not a number of MiB");
}

TEST_CASE("zl::sdk::publish")
{
  test::Enumeration e(1);
  sdk::Device d;
  d.index = 3;
  d.uuid = "GPU-a";
  d.name = "H200";
  d.memory_bytes = 42;
  d.visibility_id = "GPU-a";
  CHECK(sdk::publish(&e.out, {d, d}, "NVML", "a note") == ZL_OK);
  CHECK(e.out.count == 2); // what was found, though only the capacity is filled
  CHECK(e.source() == "NVML");
  CHECK(e.reason() == "a note");
  CHECK(e.devices[0].index == 3);
  CHECK(std::string(e.devices[0].uuid) == "GPU-a");
  CHECK(std::string(e.devices[0].visibility_id) == "GPU-a");

  test::Enumeration none;
  CHECK(sdk::publish(&none.out, {}, "npu-smi", "DCMI not loadable", "NPU") == ZL_OK);
  CHECK(none.out.count == 0);
  CHECK(none.reason() == "npu-smi lists no NPU; DCMI not loadable");
}

TEST_CASE("zl::sdk::fail")
{
  test::Enumeration e;
  e.out.count = 5;
  CHECK(sdk::fail(&e.out, ZL_ERR_PARSE, "line 1 'x'") == ZL_ERR_PARSE);
  CHECK(e.out.count == 0);
  CHECK(e.reason() == "line 1 'x'");
  CHECK(sdk::no_devices(&e.out, "no driver") == ZL_OK);
  CHECK(e.reason() == "no driver");
}
