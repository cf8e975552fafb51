#include "devices/peaks.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using zl::devices::spec_peak;

namespace {

// The SKU a name matches, or "" for none.
std::string sku_of(std::string_view name)
{
  const auto p = spec_peak(name);
  return p ? std::string(p->sku) : std::string();
}

} // namespace

TEST_CASE("zl::devices::spec_peak: names from real tool output (tests/fixtures/smi/real)")
{
  struct Case
  {
    const char* fixture;
    const char* name; // as it appears in the fixture and the backend reports it
    const char* sku;  // "": no peak
  };
  const Case cases[] = {
      {"nvidia-smi/datadog-agent-pr33120-a100-sxm4-80gb-mig-7x1g.10gb-L.txt", "NVIDIA A100-SXM4-80GB",
       "NVIDIA A100 SXM4 80GB"},
      {"nvidia-smi/nvidia-container-toolkit-issue203-a100-80gb-pcie-mig-2x3g.40gb-L.txt", "NVIDIA A100 80GB PCIe",
       "NVIDIA A100 PCIe 80GB"},
      {"nvidia-smi/akash-provider-configs-pr91-h100nvl-query-name-devid-csv-noheader.txt", "NVIDIA H100 NVL",
       "NVIDIA H100 NVL"},
      {"amd-smi/OFFICIAL-changelog-rocm700-mi300x-x8-default.txt", "AMD Instinct MI300X", "AMD Instinct MI300X"},
      // A vGPU profile is a share of an H200, not an H200.
      {"nvidia-smi/codeindex-60292320197-h200-141c-vgpu-x4-query-index-uuid-name-memtotal-memused-csv.txt",
       "NVIDIA H200-141C", ""},
      {"nvidia-smi/codeindex-55124687134-rtx4080super-rtx3090-drv595-query-index-uuid-name-memtotal-csv.txt",
       "NVIDIA GeForce RTX 4080 SUPER", ""},
      {"amd-smi/rocm-systems-pr2987-mi350x-static-multi-TRUNCATED.txt", "AMD Instinct MI350X", ""},
      // Left out of the table: no vendor sheet found (peaks.cpp).
      {"mthreads-gmi/gpustack-issue3511-s4000-x8-gmi2.2.0-drv3.0.0-perf-NA-TRUNCATED.txt", "MTT S4000", ""},
      {"npu-smi/codeindex-47328205758-atlas800-910A-x8-name-910B-npusmi2410-info.txt", "910B", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    REQUIRE(zl::test::read_fixture(std::string("smi/real/") + c.fixture).find(c.name) != std::string::npos);
    CHECK(sku_of(c.name) == c.sku);
  }
}

TEST_CASE("zl::devices::spec_peak: spellings, MIG instances and unknown names")
{
  CHECK(sku_of("NVIDIA H100 80GB HBM3") == "NVIDIA H100 SXM5 80GB");
  CHECK(sku_of("nvidia h100 80gb hbm3") == "NVIDIA H100 SXM5 80GB"); // case does not matter
  CHECK(sku_of("  NVIDIA H100 80GB HBM3\n") == "NVIDIA H100 SXM5 80GB");
  CHECK(sku_of("NVIDIA H100 PCIe") == "NVIDIA H100 PCIe 80GB");
  CHECK(sku_of("NVIDIA H200") == "NVIDIA H200 SXM 141GB");
  CHECK(sku_of("NVIDIA H200 NVL") == "NVIDIA H200 NVL 141GB"); // the more specific name wins
  CHECK(sku_of("A100-SXM4-40GB") == "NVIDIA A100 SXM4 40GB");  // drivers before R470: no "NVIDIA"
  CHECK(sku_of("NVIDIA A100-PCIE-40GB") == "NVIDIA A100 PCIe 40GB");
  CHECK(sku_of("AMD Instinct MI250X") == "AMD Instinct MI250X");
  CHECK(sku_of("AMD Instinct MI250") == "AMD Instinct MI250");
  // A MIG instance is a slice of the GPU: never the GPU's peak.
  CHECK(sku_of("NVIDIA A100-SXM4-80GB MIG 1g.10gb") == "");
  CHECK(sku_of("MIG 3g.40gb Device 0") == "");
  CHECK(sku_of("NVIDIA H100 80GB HBM3 MIG 7g.80gb") == "");
  // Ambiguous or unknown: none.
  CHECK(sku_of("AMD Instinct MI250X/MI250") == ""); // rocm-smi names both so
  CHECK(sku_of("NVIDIA H100") == "");
  CHECK(sku_of("H100") == "");
  CHECK(sku_of("NVIDIA H100 80GB HBM3 (compat)") == "");
  CHECK(sku_of("cpu") == "");
  CHECK(sku_of("") == "");
  CHECK(sku_of("NVIDIA") == "");
}

TEST_CASE("zl::devices::spec_peak: the figures, exactly as the sheets give them")
{
  const auto h100 = spec_peak("NVIDIA H100 80GB HBM3");
  REQUIRE(h100);
  CHECK(h100->bandwidth_gbps == 3350);
  CHECK(h100->fp16_tflops == 989.5); // the sheet's 1,979 with sparsity, halved
  CHECK(h100->fp32_tflops == 67);
  CHECK(h100->source.find("https://") != std::string_view::npos);
  const auto pcie = spec_peak("NVIDIA H100 PCIe");
  REQUIRE(pcie);
  CHECK(pcie->bandwidth_gbps == 2000);
  CHECK(pcie->fp16_tflops == 756.5);
  CHECK(pcie->fp32_tflops == 51);
  const auto nvl = spec_peak("NVIDIA H100 NVL");
  REQUIRE(nvl);
  CHECK(nvl->bandwidth_gbps == 3900);
  CHECK(nvl->fp16_tflops == 835.5);
  const auto h200 = spec_peak("NVIDIA H200");
  REQUIRE(h200);
  CHECK(h200->bandwidth_gbps == 4800);
  CHECK(h200->fp16_tflops == 989.5);
  const auto a100 = spec_peak("NVIDIA A100-SXM4-80GB");
  REQUIRE(a100);
  CHECK(a100->bandwidth_gbps == 2039);
  CHECK(a100->fp16_tflops == 312);
  CHECK(a100->fp32_tflops == 19.5);
  CHECK(spec_peak("NVIDIA A100-SXM4-40GB")->bandwidth_gbps == 1555);
  const auto mi300x = spec_peak("AMD Instinct MI300X");
  REQUIRE(mi300x);
  CHECK(mi300x->bandwidth_gbps == 5300);
  CHECK(mi300x->fp16_tflops == 1307.4);
  CHECK(mi300x->fp32_tflops == 163.4);
  CHECK(spec_peak("AMD Instinct MI250X")->fp16_tflops == 383);
  CHECK(spec_peak("AMD Instinct MI250")->fp16_tflops == 362.1);
  CHECK(spec_peak("AMD Instinct MI250")->bandwidth_gbps == 3200);
  // Every SKU once, each with its sheet.
  std::set<std::string_view> skus;
  for (const auto& p : zl::devices::spec_peaks()) {
    CAPTURE(p.sku);
    CHECK(skus.insert(p.sku).second);
    CHECK(p.bandwidth_gbps > 0);
    CHECK(p.fp16_tflops > 0);
    CHECK(p.source.find("https://") != std::string_view::npos);
  }
  CHECK(skus.size() == 12);
}
