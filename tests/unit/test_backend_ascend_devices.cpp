// Ascend enumeration: the npu-smi table and -m parsers on constructed outputs (including the 26.x
// Phy-ID columns), their join, and enumerate() with a fake host: DCMI skipped when
// ASCEND_RT_VISIBLE_DEVICES is set, npu-smi info joined with npu-smi info -m.
#include "ascend_devices.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_ascend;
using zl::test::Enumeration;
using zl::test::FakeVendorHost;
using zl::test::read_fixture;

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;
const std::string k_info = "npu-smi info";
const std::string k_map = "npu-smi info -m";

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

std::string fx(const std::string& name)
{
  return read_fixture("smi/ascend/" + name);
}

int g_probes = 0;

LibraryResult dcmi_absent()
{
  ++g_probes;
  LibraryResult r;
  r.detail = "libdcmi.so: cannot open shared object file";
  return r;
}

LibraryResult dcmi_failing()
{
  ++g_probes;
  LibraryResult r;
  r.state = LibraryResult::State::failed;
  r.detail = "dcmi_init returned -8005";
  return r;
}

LibraryResult dcmi_one_chip()
{
  ++g_probes;
  LibraryResult r;
  r.state = LibraryResult::State::ok;
  r.devices.push_back({0, "14036E64 00E04F1D 2A0C1101 00000000 00000000", "Ascend 910B4", 65536 * k_mib, "0"});
  return r;
}

} // namespace

TEST_CASE("zl::backend_ascend::parse_npu_smi_info")
{
  SUBCASE("two NPUs of one chip each")
  {
    const auto r = parse_npu_smi_info(fx("npu-smi-info-2npu.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.chips.size() == 2);
    CHECK(r.chips[0].npu == 0);
    CHECK(r.chips[0].chip == 0);
    CHECK(r.chips[0].name == "910B4-1");
    CHECK(r.chips[0].memory_bytes == 65536 * k_mib);
    CHECK(r.chips[1].npu == 1);
    CHECK(r.chips[1].chip == 0);
  }
  SUBCASE("npu-smi 26.x adds a Phy-ID column to the chip row")
  {
    const auto r = parse_npu_smi_info(fx("npu-smi-info-phyid-2npu.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.chips.size() == 2); // the process table below is not read as devices
    CHECK(r.chips[0].npu == 4);
    CHECK(r.chips[0].chip == 0);
    CHECK(r.chips[1].npu == 5);
    CHECK(r.chips[1].memory_bytes == 65536 * k_mib); // "40960/ 65536"
  }
  SUBCASE("a card with two chips and no HBM column: memory from Memory-Usage(MB)")
  {
    const auto r = parse_npu_smi_info("| npu-smi 23.0.0                 Version: 23.0.0            |\n"
                                      "| NPU  Name    | Health | Power(W)   Temp(C)   Hugepages-Usage(page) |\n"
                                      "| Chip Device  | Bus-Id | AICore(%)  Memory-Usage(MB)               |\n"
                                      "+==============+========+============================================+\n"
                                      "| 8    310P3   | OK     | NA         55         0    / 0            |\n"
                                      "| 0    0       | 0000:01:00.0 | 0    1516 / 44280                    |\n"
                                      "| 1    1       | 0000:01:00.0 | 0    1390 / 43693                    |\n"
                                      "+==============+========+============================================+\n");
    REQUIRE(r.ok());
    REQUIRE(r.chips.size() == 2);
    CHECK(r.chips[1].npu == 8);
    CHECK(r.chips[1].chip == 1);
    CHECK(r.chips[1].name == "310P3");
    CHECK(r.chips[1].memory_bytes == 43693 * k_mib);
  }
  SUBCASE("empty output lists nothing")
  {
    const auto r = parse_npu_smi_info(fx("npu-smi-info-empty.txt"));
    CHECK(r.ok());
    CHECK(r.chips.empty());
  }
  SUBCASE("truncated output quotes the cut line")
  {
    const auto r = parse_npu_smi_info(fx("npu-smi-info-truncated.txt"));
    CHECK(has(r.error, "output ends mid-line at line 12 '+=========='"));
  }
  SUBCASE("a card cut after its name row")
  {
    const auto text = fx("npu-smi-info-2npu.txt");
    const auto r = parse_npu_smi_info(text.substr(0, text.find("| 0                         | 0000:01")));
    CHECK(has(r.error, "NPU 1 at line 10 '| 1     910B4-1"));
    CHECK(has(r.error, "has no chip row"));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_npu_smi_info(fx("npu-smi-info-garbage.txt"));
    CHECK(has(r.error, "line 1 'dcmi model initialized failed, because the device is used. ret is -8020' is not part"));
  }
  SUBCASE("a chip row without 'used / total'")
  {
    auto text = fx("npu-smi-info-2npu.txt");
    text.replace(text.find("3197 / 65536"), 12, "NA          ");
    const auto r = parse_npu_smi_info(text);
    CHECK(has(r.error, "line 8 '| 0                         | 0000:C1:00.0"));
    CHECK(has(r.error, "no 'used / total' under HBM-Usage(MB)"));
  }
}

TEST_CASE("zl::backend_ascend::parse_npu_smi_map")
{
  SUBCASE("chips with logic IDs; MCU rows left out")
  {
    const auto r = parse_npu_smi_map(fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.rows.size() == 2);
    CHECK(r.rows[1].npu == 1);
    CHECK(r.rows[1].chip == 0);
    CHECK(r.rows[1].logic == 1);
    CHECK(r.rows[1].name == "Ascend 910B4");
  }
  SUBCASE("an extra Chip Phy-ID column")
  {
    const auto r = parse_npu_smi_map(fx("npu-smi-info-m-phyid-2npu.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.rows.size() == 2);
    CHECK(r.rows[0].npu == 4);
    CHECK(r.rows[0].logic == 0);
    CHECK(r.rows[0].name == "Ascend 910B3");
  }
  SUBCASE("single spaces between columns: the name takes the rest")
  {
    const auto r = parse_npu_smi_map("NPU ID  Chip ID  Chip Logic ID  Chip Name\n2 0 5 Ascend 910B2\n");
    REQUIRE(r.ok());
    CHECK(r.rows.at(0).logic == 5);
    CHECK(r.rows.at(0).name == "Ascend 910B2");
  }
  SUBCASE("empty, truncated, garbage")
  {
    CHECK(parse_npu_smi_map(fx("npu-smi-info-m-empty.txt")).rows.empty());
    CHECK(has(parse_npu_smi_map(fx("npu-smi-info-m-truncated.txt")).error, "output ends mid-line at line 3 '0"));
    CHECK(has(parse_npu_smi_map(fx("npu-smi-info-m-garbage.txt")).error,
              "line 1 'Usage: npu-smi info <watch|proc-mem|-h|-m|-l|-t type -i id [-c chip_id]>' is not the"));
  }
  SUBCASE("a logic ID that is not a number")
  {
    const auto r = parse_npu_smi_map("NPU ID    Chip ID    Chip Logic ID    Chip Name\n0    0    x    Ascend 910B\n");
    CHECK(has(r.error, "line 2 '0    0    x    Ascend 910B': NPU ID, Chip ID and Chip Logic ID must be numbers"));
  }
}

TEST_CASE("zl::backend_ascend::join_npu_smi")
{
  SUBCASE("each chip gets its logic ID as index and visibility ID, and a positional UUID")
  {
    const auto r = join_npu_smi(parse_npu_smi_info(fx("npu-smi-info-phyid-2npu.txt")),
                                parse_npu_smi_map(fx("npu-smi-info-m-phyid-2npu.txt")));
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[1].index == 1);
    CHECK(r.devices[1].uuid == "npu5-chip0");
    CHECK(r.devices[1].name == "Ascend 910B3");
    CHECK(r.devices[1].memory_bytes == 65536 * k_mib);
    CHECK(r.devices[1].visibility_id == "1");
  }
  SUBCASE("a chip the map does not know")
  {
    const auto r = join_npu_smi(parse_npu_smi_info(fx("npu-smi-info-phyid-2npu.txt")),
                                parse_npu_smi_map(fx("npu-smi-info-m-2npu.txt")));
    CHECK(has(r.error, "npu-smi info -m has no logic ID for NPU 4 chip 0 (table row '| 0     4"));
  }
}

TEST_CASE("zl::backend_ascend::dcmi_memory_bytes")
{
  CHECK(dcmi_memory_bytes(65536) == 65536 * k_mib);
  CHECK(dcmi_memory_bytes(65536ULL * k_mib) == 65536 * k_mib);
  CHECK(dcmi_memory_bytes(0) == 0);
}

TEST_CASE("zl::backend_ascend::enumerate")
{
  FakeVendorHost host;
  Enumeration e;
  g_probes = 0;

  SUBCASE("npu-smi info joined with npu-smi info -m")
  {
    host.on(k_info, fx("npu-smi-info-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "npu-smi");
    CHECK(e.reason().empty());
    CHECK(e.devices[0].index == 0);
    CHECK(std::string(e.devices[0].uuid) == "npu0-chip0");
    CHECK(std::string(e.devices[0].name) == "Ascend 910B4");
    CHECK(e.devices[0].memory_bytes == 65536 * k_mib);
    CHECK(std::string(e.devices[1].visibility_id) == "1");
    CHECK(host.calls() == std::vector<std::string>{k_info, k_map});
  }
  SUBCASE("the real library step: DCMI is not installed here")
  {
    if (query_dcmi().state != LibraryResult::State::absent) {
      MESSAGE("libdcmi.so is loadable on this machine; skipping the tool-path check");
      return;
    }
    host.on(k_info, fx("npu-smi-info-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(enumerate(host.api(), &e.out) == ZL_OK);
    CHECK(e.out.count == 2);
  }
  SUBCASE("ASCEND_RT_VISIBLE_DEVICES set: DCMI is not tried, and the reason says why")
  {
    host.set_env("ASCEND_RT_VISIBLE_DEVICES", "1");
    host.on(k_info, fx("npu-smi-info-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_one_chip) == ZL_OK);
    CHECK(g_probes == 0);
    CHECK(e.out.count == 2); // npu-smi is physical: it ignores the variable
    CHECK(has(e.reason(), "DCMI skipped because ASCEND_RT_VISIBLE_DEVICES is set"));
  }
  SUBCASE("DCMI answers: npu-smi is not run")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_one_chip) == ZL_OK);
    CHECK(g_probes == 1);
    REQUIRE(e.out.count == 1);
    CHECK(e.source() == "DCMI (libdcmi.so)");
    CHECK(std::string(e.devices[0].uuid) == "14036E64 00E04F1D 2A0C1101 00000000 00000000");
    CHECK(host.calls().empty());
  }
  SUBCASE("DCMI failing: npu-smi answers and the failure is reported")
  {
    host.on(k_info, fx("npu-smi-info-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_failing) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(e.source() == "npu-smi (DCMI failed)");
    CHECK(has(e.reason(), "DCMI failed (dcmi_init returned -8005)"));
  }
  SUBCASE("npu-smi missing: no devices, and the reason names the tool and the library")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "npu-smi not found on PATH and libdcmi.so not loadable (libdcmi.so: cannot open"));
  }
  SUBCASE("npu-smi info exits non-zero")
  {
    host.on(k_info, "dcmi model initialized failed, because the device is used. ret is -8020\n", 255);
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(has(e.reason(), "npu-smi info exited with code 255: 'dcmi model initialized failed"));
  }
  SUBCASE("npu-smi info -m exits non-zero")
  {
    host.on(k_info, fx("npu-smi-info-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-garbage.txt"), 2);
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(has(e.reason(), "npu-smi info -m exited with code 2: 'Usage: npu-smi info"));
  }
  SUBCASE("garbled table: a parse error quoting the line")
  {
    host.on(k_info, fx("npu-smi-info-garbage.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_ERR_PARSE);
    CHECK(has(e.reason(), "npu-smi info output not understood: line 1 'dcmi model initialized failed"));
  }
  SUBCASE("a table the map does not cover is a parse error")
  {
    host.on(k_info, fx("npu-smi-info-phyid-2npu.txt"));
    host.on(k_map, fx("npu-smi-info-m-2npu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_ERR_PARSE);
    CHECK(has(e.reason(), "no logic ID for NPU 4 chip 0"));
  }
  SUBCASE("an empty table: no devices, -m not needed")
  {
    host.on(k_info, "");
    REQUIRE(enumerate_with(host.api(), &e.out, &dcmi_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "npu-smi lists no NPU"));
    CHECK(host.calls() == std::vector<std::string>{k_info});
  }
}
