// Huawei Ascend telemetry: the `npu-smi info` table parser on every real output under
// tests/fixtures/smi/real/npu-smi (npu-smi 20.2 to 26.0), the `-t common` parser on constructed
// outputs in the documented shape (no real one has been found), and read_telemetry with a fake host.
#include "ascend_telemetry.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

using namespace zl::backend_ascend;
using zl::test::FakeVendorHost;
using zl::test::nothing_read;
using zl::test::read_fixture;

namespace {

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

std::string real(const std::string& name)
{
  return read_fixture("smi/real/npu-smi/" + name);
}

std::string fx(const std::string& name)
{
  return read_fixture("smi/ascend/" + name);
}

const char* const k_a3_cut = "vllm-ascend-issue12980-A3-ascend910-npusmi260rc2-info-TRUNCATED.txt";
const char* const k_a3_no_header = "vllm-ascend-issue2534-A3-ascend910-info-TRUNCATED-NO-HEADER.txt";
const char* const k_910x8 = "gpustack-huaweidoc-atlas800-9010-910x8-npusmi241rc2-info-with-processes.txt";

} // namespace

TEST_CASE("zl::backend_ascend::parse_npu_smi_info_telemetry on real outputs")
{
  struct Want
  {
    const char* file;
    uint32_t npu, chip;
    std::optional<double> power;
    int32_t temperature;
    const char* driver;
  };
  // The name row above a chip's row: 310 cards repeat it per chip (NPU 215 or 6, chips 0-3); an
  // A3 NPU has one per die, the second die's power "-"; the 310P3 prints power "NA".
  const Want wants[] = {
      {"codeindex-47328205758-atlas800-910A-x8-name-910B-npusmi2410-info.txt", 0, 0, 70.0, 34, "24.1.0"},
      {"codeindex-47328205758-atlas800-910A-x8-name-910B-npusmi2410-info.txt", 7, 0, 65.6, 33, "24.1.0"},
      {"codeindex-19183930683-310p3-npusmi253rc1-info-power-NA.txt", 6, 0, std::nullopt, 50, "25.3.rc1"},
      {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info.txt", 215, 0, 12.8, 56, "20.2.0"},
      {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info.txt", 215, 1, 12.8, 57, "20.2.0"},
      {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info.txt", 215, 3, 12.8, 55, "20.2.0"},
      {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2104-info.txt", 6, 0, 12.8, 73, "21.0.4.B030"},
      {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2104-info.txt", 6, 3, 12.8, 65, "21.0.4.B030"},
      {"gpustack-huaweidoc-atlas800-9010-910ax8-npusmi22031-info.txt", 0, 0, 67.2, 43, "22.0.3.1"},
      {"gpustack-huaweidoc-atlas800-9010-910ax8-npusmi22031-info.txt", 3, 0, 191.7, 42, "22.0.3.1"},
      {k_910x8, 3, 0, 206.9, 39, "24.1.RC2"}, // Health "Warning" is not a reading
      {k_910x8, 7, 0, 203.2, 42, "24.1.RC2"},
      {"hpckurt-ascend-npu-drivers-atlas300-3000-310-npusmi2300-info.txt", 0, 0, 12.8, 61, "23.0.0"},
      {k_a3_cut, 0, 0, 162.6, 34, "26.0.rc2"},
      {k_a3_cut, 0, 1, std::nullopt, 34, "26.0.rc2"},
      {k_a3_no_header, 0, 0, 178.5, 36, ""},
      {k_a3_no_header, 0, 1, std::nullopt, 36, ""},
      {k_a3_no_header, 1, 0, 186.3, 36, ""}, // "Chip Phy-ID" 0 2: chip 0
  };
  for (const auto& w : wants) {
    CAPTURE(w.file);
    CAPTURE(w.npu);
    CAPTURE(w.chip);
    const auto r = parse_npu_smi_info_telemetry(real(w.file), w.npu, w.chip);
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.source == "npu-smi");
    CHECK(t.power_w == w.power);
    CHECK(t.temperature_c == w.temperature);
    CHECK(t.driver_version == w.driver);
    CHECK(!t.sm_clock_mhz); // the table has no clocks
    CHECK(!t.throttle);
  }
  CHECK(parse_npu_smi_info_telemetry(real(k_a3_cut), 0, 1).telemetry.reason == "power: npu-smi info printed '-'");
  CHECK(parse_npu_smi_info_telemetry(real("codeindex-19183930683-310p3-npusmi253rc1-info-power-NA.txt"), 6, 0)
            .telemetry.reason == "power: npu-smi info printed 'NA'");
  CHECK(parse_npu_smi_info_telemetry(real(k_a3_no_header), 0, 0).telemetry.reason ==
        "driver: npu-smi info printed no 'Version:' banner");
}

TEST_CASE("zl::backend_ascend::parse_npu_smi_info_telemetry on real outputs without the chip")
{
  SUBCASE("a cut copy ends before the chip; a chip the table does not list")
  {
    CHECK(has(parse_npu_smi_info_telemetry(real(k_a3_cut), 1, 0).error, "the output ends mid-line at line 12 "));
    CHECK(has(parse_npu_smi_info_telemetry(real(k_a3_no_header), 1, 1).error,
              "the output ends mid-line at line 14 '| 1     Ascend910           | OK            | -' before NPU 1 "
              "chip 1"));
    CHECK(parse_npu_smi_info_telemetry(real(k_910x8), 8, 0).error == "npu-smi info lists no NPU 8 chip 0");
    CHECK(parse_npu_smi_info_telemetry(real(k_910x8), 0, 1).error == "npu-smi info lists no NPU 0 chip 1");
  }
  SUBCASE("-m and -l outputs and DCMI failures are not tables")
  {
    const std::pair<const char*, const char*> refused[] = {
        {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2020-info-m.txt", "line 1 'NPU ID "},
        {"gpustack-huaweidoc-atlas800-3000-310x4-npusmi2104-info-m.txt", "line 1 'NPU ID "},
        {"gpustack-huaweidoc-atlas800-9010-910ax8-npusmi22031-info-m.txt", "line 1 'NPU ID "},
        {"gpustack-huaweidoc-atlas800-9010-910ax8-npusmi241rc2-info-m.txt", "line 1 'NPU ID "},
        {"blog-44572046474-atlas800IA2-910B4-x8-info-l.txt", "line 1 'Total Count                    : 8'"},
        {"EDGE-hw-native-sys-simpler-pr2043-dcmi-root-only-8005-exit187.txt",
         "line 1 'DrvMngGetConsoleLogLevel failed. (ret=4)'"},
        {"EDGE-vllm-ascend-issue2698-container-dcmi-init-failed-8005.txt",
         "line 1 'DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)'"},
    };
    for (const auto& [file, error] : refused) {
      const char* const sample = file; // CAPTURE's lambda cannot take a structured binding (C++17)
      CAPTURE(sample);
      const auto r = parse_npu_smi_info_telemetry(real(file), 0, 0);
      CHECK(has(r.error, error));
      CHECK(has(r.error, "is not part of an npu-smi info table"));
      CHECK(nothing_read(r.telemetry));
      // Nor are they -t common answers.
      const auto common = parse_npu_smi_common_telemetry(real(file), 0, 0);
      CHECK(!common.error.empty());
      CHECK(nothing_read(common.telemetry));
    }
  }
}

TEST_CASE("zl::backend_ascend::parse_npu_smi_info_telemetry on constructed outputs")
{
  CHECK(parse_npu_smi_info_telemetry(fx("npu-smi-info-empty.txt"), 0, 0).error == "npu-smi info printed nothing");
  CHECK(parse_npu_smi_info_telemetry(fx("npu-smi-info-garbage.txt"), 0, 0).error ==
        "line 1 'dcmi model initialized failed, because the device is used. ret is -8020' is not part of an npu-smi "
        "info table");
  // Cut after NPU 1's rows: they are read; a chip after the cut is not.
  CHECK(parse_npu_smi_info_telemetry(fx("npu-smi-info-truncated.txt"), 1, 0).telemetry.power_w == 88.7);
  CHECK(has(parse_npu_smi_info_telemetry(fx("npu-smi-info-truncated.txt"), 2, 0).error,
            "the output ends mid-line at line 12 '+==========' before NPU 2 chip 0"));
  const auto phy = parse_npu_smi_info_telemetry(fx("npu-smi-info-phyid-2npu.txt"), 5, 0);
  REQUIRE(phy.error.empty());
  CHECK(phy.telemetry.power_w == 96.1);
  CHECK(phy.telemetry.temperature_c == 36);
  std::string text = fx("npu-smi-info-2npu.txt");
  text.replace(text.find("91.3"), 4, "warm");
  CHECK(parse_npu_smi_info_telemetry(text, 0, 0).error ==
        "line 7 '| 0     910B4-1             | OK            | warm        33                0    / 0             |': "
        "Power(W) 'warm' is not a number");
}

TEST_CASE("zl::backend_ascend::parse_npu_smi_common_telemetry")
{
  SUBCASE("910B: the chip's block, not the MCU's")
  {
    const auto r = parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-910b.txt"), 1, 0);
    REQUIRE(r.error.empty());
    CHECK(r.telemetry.sm_clock_mhz == 800u);
    CHECK(r.telemetry.sm_clock_max_mhz == 1800u);
    CHECK(r.telemetry.temperature_c == 35); // the MCU's 40 is not the chip's
    CHECK(r.telemetry.power_w == 88.7);
    CHECK(r.telemetry.reason.empty());
  }
  SUBCASE("Huawei's documented example: no Chip ID lines, the one chip")
  {
    const auto r = parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-doc-example.txt"), 0, 0);
    REQUIRE(r.error.empty());
    CHECK(r.telemetry.sm_clock_mhz == 100u);
    CHECK(r.telemetry.sm_clock_max_mhz == 1650u);
    CHECK(r.telemetry.temperature_c == 65);
    CHECK(r.telemetry.power_w == 298.6);
    CHECK(parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-doc-example.txt"), 0, 1).error ==
          "npu-smi info -t common has no Chip ID 1");
  }
  SUBCASE("a 310 card: chip 2's temperature; no AI Core clock, and a rated power is not a draw")
  {
    const auto r = parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-310x4.txt"), 215, 2);
    REQUIRE(r.error.empty());
    CHECK(r.telemetry.temperature_c == 57);
    CHECK(!r.telemetry.sm_clock_mhz);
    CHECK(!r.telemetry.power_w);
    CHECK(has(r.telemetry.reason, "AI Core clock: npu-smi info -t common printed no \"Aicore curFreq(MHZ)\""));
    CHECK(has(r.telemetry.reason, "power: npu-smi info -t common printed no \"NPU Real-time Power(W)\""));
  }
  SUBCASE("empty, garbage, truncated, another NPU, a value of another form")
  {
    CHECK(parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-empty.txt"), 0, 0).error ==
          "npu-smi info -t common printed nothing");
    CHECK(parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-garbage.txt"), 0, 0).error ==
          "no 'NPU ID' line; 'npu-smi: unrecognized option -t common' is not npu-smi info -t common output");
    const auto cut = parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-truncated.txt"), 1, 0);
    REQUIRE(cut.error.empty());
    CHECK(!cut.telemetry.sm_clock_mhz); // "Aicore curFreq(MHZ) : 8" was cut from 800
    CHECK(cut.telemetry.sm_clock_max_mhz == 1800u);
    CHECK(has(cut.telemetry.reason, "AI Core clock: npu-smi info -t common printed no \"Aicore curFreq(MHZ)\""));
    CHECK(parse_npu_smi_common_telemetry(fx("npu-smi-info-t-common-910b.txt"), 0, 0).error ==
          "line 1 'NPU ID                         : 1' is not NPU 0");
    std::string text = fx("npu-smi-info-t-common-910b.txt");
    text.replace(text.find(": 88.7"), 6, ": NA");
    auto r = parse_npu_smi_common_telemetry(text, 1, 0);
    REQUIRE(r.error.empty());
    CHECK(!r.telemetry.power_w);
    CHECK(has(r.telemetry.reason, "power: npu-smi info -t common printed 'NA'"));
    text.replace(text.find(": 35"), 4, ": hot");
    r = parse_npu_smi_common_telemetry(text, 1, 0);
    CHECK(r.error == "Chip ID 0 \"Temperature(C)\" is 'hot', not a number");
    CHECK(nothing_read(r.telemetry));
  }
}

TEST_CASE("zl::backend_ascend::chip_of")
{
  CHECK(chip_of("npu3-chip1") == std::make_pair(3u, 1u));
  CHECK(chip_of(chip_identity(215, 0)) == std::make_pair(215u, 0u));
  CHECK(!chip_of("npu-chip1"));
  CHECK(!chip_of("npu3-chipx"));
  CHECK(!chip_of("14036E64 00E04F1D"));
}

TEST_CASE("zl::backend_ascend::read_telemetry")
{
  FakeVendorHost host;
  const zl::sdk::Device device{1, chip_identity(1, 0), "Ascend 910B4", 0, "1"};
  const std::string common = "npu-smi info -t common -i 1";

  SUBCASE("the table, then -t common for the clocks")
  {
    host.on("npu-smi info", fx("npu-smi-info-2npu.txt"));
    host.on(common, fx("npu-smi-info-t-common-910b.txt"));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(host.calls() == std::vector<std::string>{"npu-smi info", common});
    CHECK(t.source == "npu-smi");
    CHECK(t.power_w == 88.7);
    CHECK(t.temperature_c == 35);
    CHECK(t.sm_clock_mhz == 800u);
    CHECK(t.sm_clock_max_mhz == 1800u);
    CHECK(t.driver_version == "25.2.0");
    CHECK(t.reason.empty());
  }
  SUBCASE("published through the descriptor's guard")
  {
    host.on("npu-smi info", fx("npu-smi-info-2npu.txt"));
    host.on(common, fx("npu-smi-info-t-common-910b.txt"));
    zl_device_info info{};
    info.index = 1;
    zl::sdk::copy_field(info.uuid, device.uuid);
    zl_telemetry out{};
    out.struct_size = sizeof(out);
    REQUIRE(zl::sdk::guarded_telemetry<read_telemetry>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.present == (ZL_TEL_SM_CLOCK | ZL_TEL_SM_CLOCK_MAX | ZL_TEL_TEMPERATURE | ZL_TEL_POWER | ZL_TEL_DRIVER));
    CHECK(out.power_mw == 88700u);
    CHECK(out.sm_clock_max_mhz == 1800u);
  }
  SUBCASE("-t common refused: the table's readings, and the reason says why the clocks are missing")
  {
    host.on("npu-smi info", fx("npu-smi-info-2npu.txt"));
    host.on(common, fx("npu-smi-info-t-common-garbage.txt"), 2);
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(t.power_w == 88.7);
    CHECK(!t.sm_clock_mhz);
    CHECK(t.reason == "npu-smi info -t common exited with code 2: 'npu-smi: unrecognized option -t common'");
  }
  SUBCASE("the table fails, -t common answers: its readings fill in")
  {
    host.on("npu-smi info", real("EDGE-hw-native-sys-simpler-pr2043-dcmi-root-only-8005-exit187.txt"), 187);
    host.on(common, fx("npu-smi-info-t-common-910b.txt"));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(t.temperature_c == 35);
    CHECK(t.power_w == 88.7);
    CHECK(t.driver_version.empty());
    CHECK(t.reason == "npu-smi info exited with code 187: 'DrvMngGetConsoleLogLevel failed. (ret=4)'");
  }
  SUBCASE("npu-smi missing: nothing read, one reason")
  {
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "npu-smi not found on PATH");
    CHECK(host.calls().size() == 1);
  }
  SUBCASE("an identity that is not npu<N>-chip<C>")
  {
    const zl::sdk::Device other{0, "14036E64", "Ascend 910B4", 0, "0"};
    const Telemetry t = read_telemetry(host.api(), other);
    CHECK(nothing_read(t));
    CHECK(has(t.reason, "the chip's identity '14036E64' is not npu<NPU>-chip<Chip>"));
    CHECK(host.calls().empty());
  }
}
