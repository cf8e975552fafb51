// The npu-smi parsers on every real output under tests/fixtures/smi/real/npu-smi (issue 10.22;
// sources in SOURCES.md there): `npu-smi info` tables of npu-smi 20.2 to 26.0, `npu-smi info -m`
// maps, and the failures and other commands, refused with the line quoted.
#include "ascend_devices.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_ascend;

namespace {

std::string read(const std::string& name)
{
  return zl::test::read_fixture("smi/real/npu-smi/" + name);
}

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("zl::backend_ascend npu-smi parsers on real outputs")
{
  constexpr uint64_t k_mib = uint64_t{1} << 20;
  SUBCASE("info and info -m of one host join into chips with logic IDs")
  {
    struct Pair
    {
      const char* info;
      const char* map;
      size_t chips;
      uint32_t npu;     // of the first chip
      const char* name; // from the map
      uint64_t memory;  // of the first chip
    };
    const Pair pairs[] = {
        {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info.txt",
         "gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info-m.txt", 4, 215, "MiniD", 8192 * k_mib},
        {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2104-info.txt",
         "gpustack-huaweidoc-atlas800-3000-310x4-npusmi2104-info-m.txt", 4, 6, "MiniD", 8192 * k_mib},
        {"gpustack-huaweidoc-atlas800-9010-910ax8-npusmi22031-info.txt",
         "gpustack-huaweidoc-atlas800-9010-910ax8-npusmi22031-info-m.txt", 8, 0, "Ascend 910A", 32768 * k_mib},
        {"gpustack-huaweidoc-atlas800-9010-910x8-npusmi241rc2-info-with-processes.txt",
         "gpustack-huaweidoc-atlas800-9010-910ax8-npusmi241rc2-info-m.txt", 8, 0, "Ascend 910A", 32768 * k_mib},
    };
    for (const auto& p : pairs) {
      CAPTURE(p.info);
      const auto table = parse_npu_smi_info(read(p.info));
      const auto map = parse_npu_smi_map(read(p.map));
      REQUIRE(table.ok());
      REQUIRE(map.ok());
      const auto joined = join_npu_smi(table, map);
      REQUIRE(joined.ok());
      REQUIRE(joined.devices.size() == p.chips);
      CHECK(joined.devices[0].uuid == "npu" + std::to_string(p.npu) + "-chip0");
      CHECK(joined.devices[0].name == p.name);
      CHECK(joined.devices[0].memory_bytes == p.memory);
      CHECK(joined.devices.back().visibility_id == std::to_string(p.chips - 1));
    }
  }
  SUBCASE("tables without their map parse on their own")
  {
    auto t = parse_npu_smi_info(read("codeindex-47328205758-atlas800-910A-x8-name-910B-npusmi2410-info.txt"));
    REQUIRE(t.ok());
    CHECK(t.chips.size() == 8);
    CHECK(t.chips[0].name == "910B");
    CHECK(t.chips[0].memory_bytes == 32768 * k_mib);
    t = parse_npu_smi_info(read("codeindex-19183930683-310p3-npusmi253rc1-info-power-NA.txt"));
    REQUIRE(t.ok());
    REQUIRE(t.chips.size() == 1);
    CHECK(t.chips[0].npu == 6);
    CHECK(t.chips[0].name == "310P3");
    t = parse_npu_smi_info(read("hpckurt-ascend-npu-drivers-atlas300-3000-310-npusmi2300-info.txt"));
    REQUIRE(t.ok());
    CHECK(t.chips.size() == 1);
    CHECK(t.chips[0].memory_bytes == 7759 * k_mib);
  }
  SUBCASE("truncated A3 tables (two dies per NPU) stop at the cut, quoting it")
  {
    CHECK(has(parse_npu_smi_info(read("vllm-ascend-issue12980-A3-ascend910-npusmi260rc2-info-TRUNCATED.txt")).error,
              "output ends mid-line at line 12"));
    CHECK(has(parse_npu_smi_info(read("vllm-ascend-issue2534-A3-ascend910-info-TRUNCATED-NO-HEADER.txt")).error,
              "output ends mid-line at line 14"));
  }
  SUBCASE("failures and other commands are refused with the line quoted")
  {
    for (const char* name : {"EDGE-hw-native-sys-simpler-pr2043-dcmi-root-only-8005-exit187.txt",
                             "EDGE-vllm-ascend-issue2698-container-dcmi-init-failed-8005.txt",
                             "blog-44572046474-atlas800IA2-910B4-x8-info-l.txt"}) {
      CAPTURE(name);
      const auto text = read(name);
      CHECK(has(parse_npu_smi_info(text).error, "line 1 '"));
      CHECK(has(parse_npu_smi_map(text).error, "line 1 '"));
    }
    CHECK(has(parse_npu_smi_info(read("blog-44572046474-atlas800IA2-910B4-x8-info-l.txt")).error,
              "'Total Count                    : 8' is not part of an npu-smi table"));
  }
}
