// AMD enumeration: the amd-smi and rocm-smi JSON parsers on constructed outputs, the rocminfo UUID
// spelling, and enumerate() with a fake host (amd-smi, then rocm-smi).
#include "rocm_devices.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_rocm;
using zl::test::Enumeration;
using zl::test::FakeVendorHost;
using zl::test::read_fixture;

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;
constexpr uint64_t k_gib = k_mib << 10;
const std::string k_list = "amd-smi list --json";
const std::string k_static = "amd-smi static --asic --vram --json";
const std::string k_rocm_smi = "rocm-smi --showproductname --showmeminfo vram --showuniqueid --json";

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

LibraryResult amdsmi_absent()
{
  LibraryResult r;
  r.detail = "libamd_smi.so: cannot open shared object file";
  return r;
}

std::string fx(const std::string& name)
{
  return read_fixture("smi/rocm/" + name);
}

} // namespace

TEST_CASE("zl::backend_rocm::parse_amd_smi")
{
  SUBCASE("two GPUs joined on the gpu index")
  {
    const auto r = parse_amd_smi(fx("amd-smi-list-2gpu.json"), fx("amd-smi-static-2gpu.json"));
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[0].index == 0);
    CHECK(r.devices[0].uuid == "41ff74a1-0000-1000-80e5-5c88007d7603");
    CHECK(r.devices[0].name == "AMD Instinct MI300X");
    CHECK(r.devices[0].memory_bytes == 196592 * k_mib);
    CHECK(r.devices[0].visibility_id == "GPU-5c88007d760374f3"); // from asic_serial, lower case
    // The second spells the key MARKET_NAME and has no serial: pinned by index.
    CHECK(r.devices[1].index == 1);
    CHECK(r.devices[1].uuid == "d3ff74a1-0000-1000-8048-0a7e3c91b2d4");
    CHECK(r.devices[1].name == "AMD Instinct MI300X");
    CHECK(r.devices[1].visibility_id == "1");
  }
  SUBCASE("empty lists")
  {
    const auto r = parse_amd_smi(fx("amd-smi-list-empty.json"), fx("amd-smi-static-empty.json"));
    CHECK(r.ok());
    CHECK(r.devices.empty());
    CHECK(parse_amd_smi("", "").devices.empty());
  }
  SUBCASE("truncated JSON quotes the last line")
  {
    auto r = parse_amd_smi(fx("amd-smi-list-truncated.json"), fx("amd-smi-static-2gpu.json"));
    CHECK(has(r.error, "amd-smi list: invalid JSON at line 12 '        \"bdf\": \"0000:'"));
    CHECK(has(r.error, "Missing a closing quotation mark"));
    r = parse_amd_smi(fx("amd-smi-list-2gpu.json"), fx("amd-smi-static-truncated.json"));
    CHECK(has(r.error, "amd-smi static: invalid JSON at line 24 '            \"bit_w'"));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_amd_smi(fx("amd-smi-list-garbage.json"), fx("amd-smi-static-garbage.json"));
    CHECK(has(r.error, "amd-smi list: invalid JSON at line 1 'ERROR:root:Unable to detect any GPU devices"));
  }
  SUBCASE("a listed GPU without static information")
  {
    const auto r = parse_amd_smi(fx("amd-smi-list-2gpu.json"), "[]");
    CHECK(has(r.error, "amd-smi static has no entry for the listed '{\"gpu\":0,"));
  }
  SUBCASE("deep nesting is an error, not a stack overflow (fuzz_amd_smi)")
  {
    // tests/fuzz/regressions/amd_smi/nested-53000-arrays: 53,294 '[' overflowed RapidJSON's
    // recursive parser. A million more, and a nesting just within the limit and just past it.
    const auto found = read_fixture("../fuzz/regressions/amd_smi/nested-53000-arrays");
    CHECK(has(parse_amd_smi(found, found).error, "amd-smi list: "));
    const std::string million(1000000, '[');
    CHECK(has(parse_amd_smi(million, "[]").error, "amd-smi list: invalid JSON"));
    auto nested = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
    CHECK(has(parse_amd_smi(nested(65), "[]").error, "JSON nested more than 64 levels deep"));
    CHECK(!has(parse_amd_smi(nested(64), "[]").error, "nested more than"));
    CHECK(has(parse_rocm_smi(nested(100000)).error, "JSON nested more than 64 levels deep"));
    // tests/fuzz/regressions/rocm_smi/nested-arrays: the same in rocm-smi's parser (fuzz_rocm_smi).
    CHECK(has(parse_rocm_smi(read_fixture("../fuzz/regressions/rocm_smi/nested-arrays")).error, "rocm-smi"));
  }
  SUBCASE("the {\"gpu_data\": [...]} wrapping is accepted")
  {
    const auto r = parse_amd_smi("{\"gpu_data\": [{\"gpu\": 0, \"uuid\": \"u0\"}]}",
                                 "{\"gpu_data\": [{\"gpu\": 0, \"asic\": {\"market_name\": \"MI210\"}, "
                                 "\"vram\": {\"size\": {\"value\": 64, \"unit\": \"GB\"}}}]}");
    REQUIRE(r.ok());
    CHECK(r.devices.at(0).memory_bytes == 64 * k_gib);
  }
}

TEST_CASE("zl::backend_rocm::parse_rocm_smi")
{
  SUBCASE("two cards")
  {
    const auto r = parse_rocm_smi(fx("rocm-smi-2gpu.json"));
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[0].index == 0);
    CHECK(r.devices[0].uuid == "0x5c88007d760374f3");
    CHECK(r.devices[0].name == "AMD Instinct MI300X");
    CHECK(r.devices[0].memory_bytes == 206141652992ULL);
    CHECK(r.devices[0].visibility_id == "GPU-5c88007d760374f3");
    // No unique ID and no series: a positional identity and the SKU.
    CHECK(r.devices[1].index == 1);
    CHECK(r.devices[1].uuid == "card1");
    CHECK(r.devices[1].name == "D70401XT");
    CHECK(r.devices[1].memory_bytes == 21458059264ULL);
    CHECK(r.devices[1].visibility_id == "1");
  }
  SUBCASE("empty")
  {
    CHECK(parse_rocm_smi(fx("rocm-smi-empty.json")).devices.empty());
    CHECK(parse_rocm_smi("").ok());
  }
  SUBCASE("truncated JSON quotes the line")
  {
    const auto r = parse_rocm_smi(fx("rocm-smi-truncated.json"));
    CHECK(has(r.error, "rocm-smi: invalid JSON at line 1 '{\"card0\": {\"Unique ID\""));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_rocm_smi(fx("rocm-smi-garbage.json"));
    CHECK(has(r.error, "rocm-smi: invalid JSON at line 3 '===="));
  }
  SUBCASE("a card without memory is refused, showing the entry")
  {
    const auto r = parse_rocm_smi("{\"card2\": {\"Card Series\": \"Radeon PRO W7900\"}}");
    CHECK(has(r.error, "rocm-smi card2 lacks \"VRAM Total Memory (B)\": '{\"Card Series\":\"Radeon PRO W7900\"}'"));
  }
  SUBCASE("issue 10.21: \"Card series\" up to ROCm 6.1; a card with no name (consumer N/A SKU) is still listed")
  {
    auto r = parse_rocm_smi(R"j({"card0": {"Card series": "Radeon RX 6800", "Card SKU": "N/A",
                                          "VRAM Total Memory (B)": "17163091968"}})j");
    REQUIRE(r.ok());
    CHECK(r.devices[0].name == "Radeon RX 6800");
    r = parse_rocm_smi(R"j({"card1": {"Card Series": "N/A", "Card SKU": "N/A", "Card Model": "0x73bf",
                                     "VRAM Total Memory (B)": "17163091968"}})j");
    REQUIRE(r.ok());
    CHECK(r.devices[0].name == "AMD GPU (card1)");
    CHECK(r.devices[0].memory_bytes == 17163091968);
  }
}

TEST_CASE("zl::backend_rocm::rocr_uuid")
{
  CHECK(rocr_uuid("0x5C88007D760374F3") == "GPU-5c88007d760374f3");
  CHECK(rocr_uuid("5c88007d760374f3") == "GPU-5c88007d760374f3");
  CHECK(rocr_uuid("0xabc") == "GPU-0000000000000abc");
  CHECK(rocr_uuid("N/A").empty());
  CHECK(rocr_uuid("").empty());
  CHECK(rocr_uuid("0x5c88007d760374f3aa").empty());
}

TEST_CASE("zl::backend_rocm::enumerate")
{
  FakeVendorHost host;
  Enumeration e;

  SUBCASE("amd-smi answers")
  {
    host.on(k_list, fx("amd-smi-list-2gpu.json"));
    host.on(k_static, fx("amd-smi-static-2gpu.json"));
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "amd-smi");
    CHECK(std::string(e.devices[0].visibility_id) == "GPU-5c88007d760374f3");
    CHECK(host.calls() == std::vector<std::string>{k_list, k_static});
  }
  SUBCASE("the real library step: AMD SMI is not installed here")
  {
    if (query_amdsmi().state != LibraryResult::State::absent) {
      MESSAGE("libamd_smi.so is loadable on this machine; skipping the tool-path check");
      return;
    }
    host.on(k_rocm_smi, fx("rocm-smi-2gpu.json"));
    REQUIRE(enumerate(host.api(), &e.out) == ZL_OK);
    CHECK(e.out.count == 2);
  }
  SUBCASE("amd-smi missing: rocm-smi answers")
  {
    host.on(k_rocm_smi, fx("rocm-smi-2gpu.json"));
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "rocm-smi");
    CHECK(std::string(e.devices[0].uuid) == "0x5c88007d760374f3");
  }
  SUBCASE("amd-smi failing: rocm-smi answers, and the failure is reported")
  {
    host.on(k_list, "", 1);
    host.on(k_rocm_smi, fx("rocm-smi-2gpu.json"));
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(has(e.reason(), "amd-smi list exited with code 1"));
  }
  SUBCASE("neither tool: no devices, and the reason names both and the library")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "amd-smi not found on PATH, rocm-smi not found on PATH and libamd_smi.so not loadable"));
  }
  SUBCASE("amd-smi garbled, rocm-smi missing: a parse error")
  {
    host.on(k_list, fx("amd-smi-list-garbage.json"));
    host.on(k_static, fx("amd-smi-static-garbage.json"));
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_ERR_PARSE);
    CHECK(has(e.reason(), "'ERROR:root:Unable to detect any GPU devices"));
    CHECK(has(e.reason(), "rocm-smi not found on PATH"));
  }
  SUBCASE("amd-smi missing, rocm-smi exits non-zero: its exit code and first line")
  {
    host.on(k_rocm_smi, "ERROR: No AMD GPUs found\n", 2);
    REQUIRE(enumerate_with(host.api(), &e.out, &amdsmi_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(has(e.reason(), "rocm-smi exited with code 2: 'ERROR: No AMD GPUs found'"));
  }
}
