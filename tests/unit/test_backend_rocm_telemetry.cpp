// AMD telemetry: the rocm-smi JSON parser on every real output under tests/fixtures/smi/real/rocm-smi
// (the telegraf captures ran rocm-smi with -c -t -P -M -v --showdriverversion among others, so they
// carry every key read here) and on constructed ones, and read_telemetry with a fake host.
#include "rocm_telemetry.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

using namespace zl::backend_rocm;
using zl::test::FakeVendorHost;
using zl::test::nothing_read;
using zl::test::read_fixture;

namespace {

const std::string k_card0 = "rocm-smi -d 0 --showclocks --showtemp --showpower --showmaxpower --showperflevel "
                            "--showdriverversion --showvbios --showuniqueid --json";

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

std::string real(const std::string& name)
{
  return read_fixture("smi/real/rocm-smi/" + name);
}

std::string fx(const std::string& name)
{
  return read_fixture("smi/rocm/" + name);
}

} // namespace

TEST_CASE("zl::backend_rocm::parse_rocm_smi_telemetry on real outputs")
{
  struct Want
  {
    const char* file;
    uint32_t card;
    std::optional<uint32_t> sclk, mclk;
    std::optional<int32_t> temperature;
    std::optional<double> power, cap;
    std::optional<uint32_t> locked;
    const char* vbios;
    const char* driver;
  };
  // Values as the files print them. ROCm 6.0.2 prints "N/A (Secondary die)" for the power of an
  // RX 6700 XT; 6.1.2 an sclk of 0 (deep sleep); the MI50 runs at Performance Level "high".
  const Want wants[] = {
      {"telegraf-vega-10-XT.json.txt", 0, 1269, 167, 39, 15.0, 170.0, 0, "113-D0510100-106", "5.9.25"},
      {"telegraf-vega-20-WKS-GL-XE.json.txt", 0, 1725, 1000, 36, 26.0, 225.0, 1725, "113-D1631700-111", "5.9.17"},
      {"telegraf-rx6700xt_rocm430.json.txt", 0, 500, 96, 45, 6.0, 211.0, 0, "113-67XA6SSB1-D01", "6.3.6"},
      {"telegraf-rx6700xt_rocm571.json.txt", 0, 500, 96, 45, 6.0, 211.0, 0, "113-67XA6SSB1-D01", "6.3.6"},
      {"telegraf-rx6700xt_rocm602.json.txt", 0, 500, 96, 45, std::nullopt, 211.0, 0, "113-67XA6SSB1-D01", "6.3.6"},
      {"telegraf-rx6700xt_rocm612.json.txt", 0, 0, 96, 45, 6.0, 211.0, 0, "113-67XA6SSB1-D01", "6.3.6"},
      {"telegraf-mi100_rocm571.json.txt", 0, 300, 1200, 31, 39.0, 290.0, 0, "113-D3430400-037", "6.2.4"},
      {"telegraf-mi100_rocm571.json.txt", 5, 300, 1200, 33, 40.0, 290.0, 0, "113-D3430400-037", "6.2.4"},
      // --showtemp --showpower without clocks, level, VBIOS or driver.
      {"gpustack-rx7800xt-rocm624-i-meminfo-power-serial-use-temp-productname-uniqueid-json.txt", 0, std::nullopt,
       std::nullopt, 45, 53.0, std::nullopt, std::nullopt, "", ""},
      {"gpustack-hygon-dcu-dtk24043-rocm-smi-json-SANITIZED.txt", 0, std::nullopt, std::nullopt, 41, 80.0, std::nullopt,
       std::nullopt, "", ""},
      // 2019: "(c)" in lower case.
      {"rainbowminer-issue749-2019-f-t-P-json-oneline.txt", 0, std::nullopt, std::nullopt, 77, 222.0, std::nullopt,
       std::nullopt, "", ""},
  };
  for (const auto& w : wants) {
    CAPTURE(w.file);
    CAPTURE(w.card);
    const auto r = parse_rocm_smi_telemetry(real(w.file), w.card);
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.source == "rocm-smi");
    CHECK(t.sm_clock_mhz == w.sclk);
    CHECK(t.mem_clock_mhz == w.mclk);
    CHECK(t.temperature_c == w.temperature);
    CHECK(t.power_w == w.power);
    CHECK(t.power_limit_w == w.cap);
    CHECK(t.locked_mhz == w.locked);
    CHECK(t.firmware_version == w.vbios);
    CHECK(t.driver_version == w.driver);
    CHECK(!t.sm_clock_max_mhz); // rocm-smi's JSON gives no attributable maximum
    CHECK(!t.throttle);
    CHECK(has(t.reason, "rocm-smi gives no max clocks, throttle reasons"));
  }
  CHECK(has(parse_rocm_smi_telemetry(real("telegraf-rx6700xt_rocm602.json.txt"), 0).telemetry.reason,
            "power: rocm-smi printed \"Average Graphics Package Power (W)\": 'N/A (Secondary die)'"));
  CHECK(
      has(parse_rocm_smi_telemetry(real("gpustack-hygon-dcu-dtk24043-rocm-smi-json-SANITIZED.txt"), 0).telemetry.reason,
          "sclk: rocm-smi printed no \"sclk clock speed:\""));
}

TEST_CASE("zl::backend_rocm::parse_rocm_smi_telemetry on real outputs without telemetry")
{
  SUBCASE("JSON of other options: the card, with nothing read")
  {
    for (const char* file :
         {"marimo-issue9237-rx7900xt-productname-use-vram-json.txt",
          "rocm_smi_lib-issue159-mi250x-showproductname-json.txt", "rocm_smi_lib-pr120-rx6800x2-showmemuse-json.txt"}) {
      CAPTURE(file);
      const auto r = parse_rocm_smi_telemetry(real(file), 0);
      CHECK(r.error.empty());
      CHECK(nothing_read(r.telemetry));
      CHECK(has(r.telemetry.reason, "temperature: rocm-smi printed no \"Temperature (Sensor edge) (C)\" and no "
                                    "\"Temperature (Sensor junction) (C)\""));
    }
  }
  SUBCASE("a card the output does not have")
  {
    const auto r = parse_rocm_smi_telemetry(real("telegraf-vega-10-XT.json.txt"), 3);
    CHECK(r.error == "rocm-smi printed no card3 object (it printed card0, system)");
  }
  SUBCASE("tables, CSV and failure messages: invalid JSON, the line quoted")
  {
    const std::pair<const char*, const char*> refused[] = {
        {"rainbowminer-issue749-2019-default-table.txt", "invalid JSON at line 1 '====="},
        {"amdgpu_top-issue60-2023-concise-info.txt", "invalid JSON at line 1 '====="},
        {"easybuild-pr3978-fiji-furyx-showproductname-TRUNCATED.txt", "invalid JSON at line 3 '====="},
        {"easybuild-pr3978-mi100x2-showproductname-csv.txt", "invalid JSON at line 1 'device,Card series,"},
        {"marimo-issue9237-rx7900xt-productname-use-vram-csv.txt", "invalid JSON at line 1 'device,GPU use (%),"},
        {"gpuowl-issue167-radeonvii-x2-rocm330-showuniqueid.txt", "invalid JSON at line 3 '====="},
        {"rocm-issue1351-mi100-rocm400-showproductname.txt", "invalid JSON at line 1 '====="},
        {"legacy-rocm-issue4759-mi300x-dpx-rocm641-i-showid-TRUNCATED.txt", "invalid JSON at line 3 '====="},
        {"EDGE-roc-smi-issue90-vega10xt-rocm330-default-vram-NA.txt", "invalid JSON at line 1 '====="},
        {"EDGE-rocm-issue5480-mi210x2-rocm633-showuniqueid-NA.txt", "invalid JSON at line 2 '====="},
        {"EDGE-legacy-rocm-issue2767-rocm600-rx7900xtx-driver-not-initialized.txt",
         "invalid JSON at line 1 'cat: /sys/module/amdgpu/initstate"},
        {"EDGE-legacy-rocm-issue2995-v620-mxgpu-no-amd-gpus.txt", "invalid JSON at line 1 'WARNING: No AMD GPUs"},
        {"EDGE-rocm-issue4374-mi300a-showrasinfo-json-no-data.txt",
         "invalid JSON at line 1 'WARNING: No JSON data to report'"},
    };
    for (const auto& [file, error] : refused) {
      const char* const sample = file; // CAPTURE's lambda cannot take a structured binding (C++17)
      CAPTURE(sample);
      const auto r = parse_rocm_smi_telemetry(real(file), 0);
      CHECK(has(r.error, error));
      CHECK(nothing_read(r.telemetry));
    }
  }
}

TEST_CASE("zl::backend_rocm::parse_rocm_smi_telemetry on constructed outputs")
{
  SUBCASE("MI300X: junction without edge, the socket power, Performance Level manual holds sclk")
  {
    const auto r = parse_rocm_smi_telemetry(fx("rocm-smi-telemetry-mi300x.json"), 0, "GPU-5c88007d760374f3");
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.sm_clock_mhz == 2100u);
    CHECK(t.mem_clock_mhz == 1300u);
    CHECK(t.temperature_c == 52);
    CHECK(t.power_w == 734.0);
    CHECK(t.power_limit_w == 750.0);
    CHECK(t.locked_mhz == 2100u);
    CHECK(t.firmware_version == "113-M3000100-102");
    CHECK(t.driver_version == "6.12.12");
    CHECK(t.reason == "rocm-smi gives no max clocks, throttle reasons, ECC or partition mode here");
  }
  SUBCASE("another GPU's unique ID: rocm-smi numbers the GPUs otherwise")
  {
    const auto r = parse_rocm_smi_telemetry(fx("rocm-smi-telemetry-mi300x.json"), 0, "GPU-0a7e3c91b2d40000");
    CHECK(has(r.error, "rocm-smi's card0 is GPU-5c88007d760374f3, not this GPU (GPU-0a7e3c91b2d40000)"));
    CHECK(nothing_read(r.telemetry));
  }
  SUBCASE("empty, garbage, truncated")
  {
    CHECK(parse_rocm_smi_telemetry(fx("rocm-smi-telemetry-empty.json"), 0).error == "rocm-smi printed nothing");
    CHECK(has(parse_rocm_smi_telemetry(fx("rocm-smi-telemetry-garbage.json"), 0).error,
              "invalid JSON at line 1 'Traceback (most recent call last):'"));
    const auto cut = parse_rocm_smi_telemetry(fx("rocm-smi-telemetry-truncated.json"), 0);
    CHECK(has(cut.error, "invalid JSON at line 1 '{\"card0\""));
    CHECK(has(cut.error, "Missing a closing quotation mark"));
    CHECK(nothing_read(cut.telemetry));
    CHECK(has(parse_rocm_smi_telemetry("[1, 2]", 0).error, "rocm-smi did not print an object of cards: '[1, 2]'"));
    // Deep nesting is parsed iteratively and never walked: an answer, not a stack overflow.
    const std::string deep = "{\"card0\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    CHECK(parse_rocm_smi_telemetry(deep, 0).error == "rocm-smi's card0 is not an object of values");
  }
  SUBCASE("a value of another form is an error naming the key; N/A is unread")
  {
    auto r = parse_rocm_smi_telemetry(R"j({"card0": {"sclk clock speed:": "(fast)"}})j", 0);
    CHECK(r.error == "card0 \"sclk clock speed:\" is '(fast)', not a clock such as '(1500Mhz)'");
    CHECK(nothing_read(r.telemetry));
    r = parse_rocm_smi_telemetry(R"j({"card0": {"Max Graphics Package Power (W)": "-1"}})j", 0);
    CHECK(r.error == "card0 \"Max Graphics Package Power (W)\" is '-1', not a number");
    r = parse_rocm_smi_telemetry(R"j({"card0": {"Temperature (Sensor edge) (C)": "N/A",
                                    "Temperature (Sensor junction) (C)": "N/A", "VBIOS version": "N/A",
                                    "Performance Level": "n/a"}})j",
                                 0);
    REQUIRE(r.error.empty());
    CHECK(nothing_read(r.telemetry));
    CHECK(has(r.telemetry.reason, "\"Temperature (Sensor edge) (C)\": 'N/A' and \"Temperature (Sensor junction)"));
    CHECK(has(r.telemetry.reason, "VBIOS: rocm-smi printed 'N/A'"));
    CHECK(has(r.telemetry.reason, "clock lock: Performance Level 'n/a' is not one zl knows"));
  }
  SUBCASE("numbers instead of strings are read; a held level without sclk is not a lock")
  {
    const auto r = parse_rocm_smi_telemetry(
        R"j({"card2": {"Temperature (Sensor edge) (C)": 48.6, "Performance Level": "stable_peak"}})j", 2);
    REQUIRE(r.error.empty());
    CHECK(r.telemetry.temperature_c == 49);
    CHECK(!r.telemetry.locked_mhz);
    CHECK(has(r.telemetry.reason, "Performance Level 'stable_peak' holds the clocks, but no sclk says at what"));
  }
}

TEST_CASE("zl::backend_rocm::read_telemetry")
{
  FakeVendorHost host;
  zl::sdk::Device device{0, "0x5c88007d760374f3", "AMD Instinct MI300X", 0, "GPU-5c88007d760374f3"};

  SUBCASE("rocm-smi answers for the GPU's index")
  {
    host.on(k_card0, fx("rocm-smi-telemetry-mi300x.json"));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(host.calls() == std::vector<std::string>{k_card0});
    CHECK(t.source == "rocm-smi");
    CHECK(t.power_w == 734.0);
    CHECK(t.locked_mhz == 2100u);
  }
  SUBCASE("published through the descriptor's guard: bits and milliwatts")
  {
    host.on(k_card0, fx("rocm-smi-telemetry-mi300x.json"));
    zl_device_info info{};
    info.index = 0;
    zl::sdk::copy_field(info.visibility_id, device.visibility_id);
    zl_telemetry out{};
    out.struct_size = sizeof(out);
    REQUIRE(zl::sdk::guarded_telemetry<read_telemetry>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.present == (ZL_TEL_SM_CLOCK | ZL_TEL_MEM_CLOCK | ZL_TEL_LOCKED | ZL_TEL_TEMPERATURE | ZL_TEL_POWER |
                          ZL_TEL_POWER_LIMIT | ZL_TEL_DRIVER | ZL_TEL_FIRMWARE));
    CHECK(out.power_mw == 734000u);
    CHECK(out.power_limit_mw == 750000u);
    CHECK(out.clocks_locked == 1u);
    CHECK(std::string(out.source) == "rocm-smi");
  }
  SUBCASE("rocm-smi missing: nothing read, the reason names it")
  {
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "rocm-smi not found on PATH (zl reads AMD telemetry through rocm-smi only)");
  }
  SUBCASE("rocm-smi exits non-zero: its code and what it said")
  {
    host.on(k_card0, "ERROR: GPU[0] : Unable to get power\n", 1);
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "rocm-smi exited with code 1: 'ERROR: GPU[0] : Unable to get power'");
  }
  SUBCASE("rocm-smi killed on timeout")
  {
    host.refuse(k_card0, ZL_ERR_TOOL_FAILED, "rocm-smi did not finish within 20 s and was killed");
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "rocm-smi failed: rocm-smi did not finish within 20 s and was killed");
  }
  SUBCASE("garbage: the parse error, quoted")
  {
    host.on(k_card0, fx("rocm-smi-telemetry-garbage.json"));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(has(t.reason, "rocm-smi output not understood: invalid JSON at line 1 'Traceback"));
  }
}
