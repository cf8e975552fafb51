// The rocm-smi and amd-smi JSON parsers on every real output under tests/fixtures/smi/real
// (issue 10.21, 10.22; sources in SOURCES.md there). Outputs of other commands (tables, CSV,
// --version, watch mode) and the tools' failure messages must be refused with the line quoted.
#include "rocm_devices.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <utility>

using zl::backend_rocm::parse_amd_smi;
using zl::backend_rocm::parse_rocm_smi;

namespace {

std::string read(const std::string& tool, const std::string& name)
{
  return zl::test::read_fixture("smi/real/" + tool + "/" + name);
}

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("zl::backend_rocm::parse_rocm_smi on real outputs")
{
  struct Want
  {
    const char* file;
    size_t count;
    const char* name; // of card0
    uint64_t memory;  // of card0
    const char* uuid; // of card0
    const char* rocr; // its visibility_id
  };
  // "Card series" (lower-case s) up to ROCm 6.1, "Card Series" from 6.2; N/A unique IDs are
  // positional; ROCm 4.3's series is a bare PCI id, so the SKU names the card.
  const Want wants[] = {
      {"telegraf-vega-10-XT.json.txt", 1, "D05101", 17163091968, "0x2150e7d042a1124", "GPU-02150e7d042a1124"},
      {"telegraf-vega-20-WKS-GL-XE.json.txt", 1, "Radeon Instinct MI50 32GB", 34342961152, "0x2f048617326b1ea",
       "GPU-02f048617326b1ea"},
      {"telegraf-rx6700xt_rocm430.json.txt", 1, "67XA6S", 12868124672, "card0", "0"},
      {"telegraf-rx6700xt_rocm571.json.txt", 1, "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", 12868124672, "card0", "0"},
      {"telegraf-rx6700xt_rocm602.json.txt", 1, "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", 12868124672, "card0", "0"},
      {"telegraf-rx6700xt_rocm612.json.txt", 1, "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", 12868124672, "card0", "0"},
      {"telegraf-mi100_rocm571.json.txt", 6, "Arcturus GL-XL [Instinct MI100]", 34342961152, "card0", "0"},
      {"gpustack-rx7800xt-rocm624-i-meminfo-power-serial-use-temp-productname-uniqueid-json.txt", 1,
       "Navi 32 [Radeon RX 7700 XT / 7800 XT]", 17163091968, "0x5c88007d760374f3", "GPU-5c88007d760374f3"},
      {"gpustack-hygon-dcu-dtk24043-rocm-smi-json-SANITIZED.txt", 1, "DCU xxxx", 65520ULL << 20, "7100fa8866904061",
       "GPU-7100fa8866904061"},
      {"marimo-issue9237-rx7900xt-productname-use-vram-json.txt", 1, "Radeon RX 7900 XT", 21458059264, "card0", "0"},
  };
  for (const auto& w : wants) {
    CAPTURE(w.file);
    const auto r = parse_rocm_smi(read("rocm-smi", w.file));
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == w.count);
    CHECK(r.devices[0].name == w.name);
    CHECK(r.devices[0].memory_bytes == w.memory);
    CHECK(r.devices[0].uuid == w.uuid);
    CHECK(r.devices[0].visibility_id == w.rocr);
  }
  // Other rocm-smi commands: JSON without the VRAM total, tables, CSV, and failure messages.
  const std::pair<const char*, const char*> refused[] = {
      {"rainbowminer-issue749-2019-f-t-P-json-oneline.txt", "rocm-smi card0 lacks \"VRAM Total Memory (B)\""},
      {"rocm_smi_lib-issue159-mi250x-showproductname-json.txt", "rocm-smi card0 lacks \"VRAM Total Memory (B)\""},
      {"rocm_smi_lib-pr120-rx6800x2-showmemuse-json.txt", "rocm-smi card0 lacks \"VRAM Total Memory (B)\""},
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
       "line 1 'cat: /sys/module/amdgpu/initstate: No such file or directory'"},
      {"EDGE-legacy-rocm-issue2995-v620-mxgpu-no-amd-gpus.txt", "line 1 'WARNING: No AMD GPUs specified'"},
      {"EDGE-rocm-issue4374-mi300a-showrasinfo-json-no-data.txt", "line 1 'WARNING: No JSON data to report'"},
  };
  for (const auto& [file, error] : refused) {
    const char* const sample = file; // CAPTURE's lambda cannot take a structured binding (C++17)
    CAPTURE(sample);
    const auto r = parse_rocm_smi(read("rocm-smi", file));
    CHECK(has(r.error, error));
    CHECK(r.devices.empty());
  }
}

TEST_CASE("zl::backend_rocm::parse_amd_smi on real outputs")
{
  const std::string one_gpu = R"([{"gpu": 0, "bdf": "0000:03:00.0", "uuid": "7eff74a0-0000-1000-808f-7e20764e2714"}])";
  SUBCASE("static --asic --json, a bare list (before 26.x) and {\"gpu_data\": […]} (26.x): the market name is read, "
          "and the VRAM total --vram would add is missing")
  {
    for (const char* file : {"openlinkhub-issue117-granite-ridge-igpu-static-asic-json-list.txt",
                             "openlinkhub-issue458-rx7900xtx-static-asic-json-gpu_data.txt"}) {
      CAPTURE(file);
      const auto r = parse_amd_smi(one_gpu, read("amd-smi", file));
      CHECK(has(r.error, "amd-smi static entry for gpu 0 lacks a vram.size {value, unit}"));
    }
  }
  SUBCASE("invalid JSON as posted is quoted where it breaks")
  {
    const auto r =
        parse_amd_smi(one_gpu, read("amd-smi", "openlinkhub-issue117-rx7900xtx-static-asic-json-list-USER-REDACTED-"
                                               "INVALID.txt"));
    CHECK(has(r.error, "amd-smi static: invalid JSON at line 10"));
  }
  SUBCASE("text views, --version, watch mode and failures are refused with their first line")
  {
    const std::pair<const char*, const char*> refused[] = {
        {"pve-mods-issue348-radeon780m-list.txt", "line 1 'GPU: 0'"},
        {"OFFICIAL-changelog-rocm630-list-redacted.txt", "line 1 'GPU: 0'"},
        {"pve-mods-issue348-radeon780m-static-gpu0-TRUNCATED.txt", "line 1 'GPU: 0'"},
        {"rocm-systems-pr2987-mi350x-static-multi-TRUNCATED.txt", "invalid JSON at line 1"},
        {"OFFICIAL-changelog-rocm700-mi300x-x8-default.txt", "line 1 '+-----"},
        {"ajean-issue32-rx7800xt-default-TRUNCATED.txt", "line 1 '+-----"},
        {"amdsmi-issue132-mi300x-dpx-rocm702-default-TRUNCATED.txt", "line 1 '+-----"},
        {"therock-issue1737-multi-radeon-rocm790-default-TRUNCATED.txt", "invalid JSON at line 1"},
        {"amdsmi-issue132-mi300x-dpx-set-help-gpu-choices-TRUNCATED.txt", "line 1 'usage: amd-smi set"},
        {"k8s-device-plugin-issue157-mi300x-version.txt", "line 1 'AMDSMI Tool: 25.3.0+ede62f2"},
        {"legacy-rocm-issue4759-mi300x-version-rocm641.txt", "line 1 'AMDSMI Tool: 25.4.2+aca1101"},
        {"rocm-systems-pr2720-strixhalo-metric-watch-json-list-TRUNCATED.txt", "line 1 ''CTRL' + 'C' to stop"},
        {"rocprofiler-compute-pr836-mi355-static-clock-json-list-TRUNCATED.txt", "amd-smi"},
        {"EDGE-amdsmi-issue172-builtin-amdgpu-driver-not-initialized-26.1.0.txt",
         "line 1 'ERROR:root:Unable to get devices, driver not initialized"},
        {"EDGE-rocm-systems-pr2987-mi350x-static-no-libdrm-TRUNCATED.txt", "line 1 'Fail to open libdrm_amdgpu.so.1"},
        {"EDGE-rocm-systems-pr2987-mi350-static-no-libdrm-garbage-bdf-TRUNCATED.txt",
         "line 1 'Fail to open libdrm_amdgpu.so.1"},
    };
    for (const auto& [file, error] : refused) {
      const char* const sample = file; // CAPTURE's lambda cannot take a structured binding (C++17)
      CAPTURE(sample);
      const auto as_list = parse_amd_smi(read("amd-smi", file), "[]");
      const auto as_static = parse_amd_smi(one_gpu, read("amd-smi", file));
      CHECK(has(as_list.error + " / " + as_static.error, error));
      CHECK(!as_list.ok());
      CHECK(!as_static.ok());
    }
  }
}
