// The cuda backend's spec-peak table (cuda_peaks.cpp), read through the core's matching as zl
// reads the module's descriptor: names from real tool output, spellings, MIG, exact figures.
#include "cuda_devices.hpp"

#include "fixture.hpp"
#include "peak_helpers.hpp"

#include <doctest/doctest.h>

using zl::test::sku_in;

namespace {

const zl::devices::PeakTable k_table{zl::backend_cuda::peaks(), zl::backend_cuda::peak_count()};

std::string sku_of(std::string_view name)
{
  return sku_in(k_table, name);
}

std::optional<zl::devices::Peak> peak(std::string_view name)
{
  return zl::devices::spec_peak(name, {k_table});
}

} // namespace

TEST_CASE("zl::backend_cuda::peaks: names from real tool output (tests/fixtures/smi/real)")
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
      // A vGPU profile is a share of an H200, not an H200.
      {"nvidia-smi/codeindex-60292320197-h200-141c-vgpu-x4-query-index-uuid-name-memtotal-memused-csv.txt",
       "NVIDIA H200-141C", ""},
      {"nvidia-smi/codeindex-55124687134-rtx4080super-rtx3090-drv595-query-index-uuid-name-memtotal-csv.txt",
       "NVIDIA GeForce RTX 4080 SUPER", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    REQUIRE(zl::test::read_fixture(std::string("smi/real/") + c.fixture).find(c.name) != std::string::npos);
    CHECK(sku_of(c.name) == c.sku);
  }
}

TEST_CASE("zl::backend_cuda::peaks: spellings, MIG instances and unknown names")
{
  CHECK(sku_of("NVIDIA H100 80GB HBM3") == "NVIDIA H100 SXM5 80GB");
  CHECK(sku_of("nvidia h100 80gb hbm3") == "NVIDIA H100 SXM5 80GB"); // case does not matter
  CHECK(sku_of("  NVIDIA H100 80GB HBM3\n") == "NVIDIA H100 SXM5 80GB");
  CHECK(sku_of("NVIDIA H100 PCIe") == "NVIDIA H100 PCIe 80GB");
  CHECK(sku_of("NVIDIA H200") == "NVIDIA H200 SXM 141GB");
  CHECK(sku_of("NVIDIA H200 NVL") == "NVIDIA H200 NVL 141GB"); // the more specific name wins
  CHECK(sku_of("A100-SXM4-40GB") == "NVIDIA A100 SXM4 40GB");  // drivers before R470: no "NVIDIA"
  CHECK(sku_of("A100-SXM4-80GB") == "NVIDIA A100 SXM4 80GB");
  CHECK(sku_of("NVIDIA A100-PCIE-40GB") == "NVIDIA A100 PCIe 40GB");
  // Every name the table lists also without "NVIDIA ", as the table before ABI 1.3 read it.
  for (size_t i = 0; i < k_table.count; ++i) {
    const std::string name = k_table.entries[i].device_name;
    CAPTURE(name);
    if (name.rfind("NVIDIA ", 0) == 0) {
      CHECK(sku_of(name.substr(7)) == k_table.entries[i].sku);
    }
  }
  // A MIG instance is a slice of the GPU: never the GPU's peak.
  CHECK(sku_of("NVIDIA A100-SXM4-80GB MIG 1g.10gb") == "");
  CHECK(sku_of("MIG 3g.40gb Device 0") == "");
  CHECK(sku_of("NVIDIA H100 80GB HBM3 MIG 7g.80gb") == "");
  // Ambiguous or unknown: none.
  CHECK(sku_of("NVIDIA H100") == "");
  CHECK(sku_of("H100") == "");
  CHECK(sku_of("NVIDIA H100 80GB HBM3 (compat)") == "");
  CHECK(sku_of("NVIDIA") == "");
  CHECK(sku_of("AMD Instinct MI300X") == ""); // another backend's device
}

TEST_CASE("zl::backend_cuda::peaks: the figures, exactly as the sheets give them")
{
  const auto h100 = peak("NVIDIA H100 80GB HBM3");
  REQUIRE(h100);
  CHECK(h100->bandwidth_gbps == 3350);
  CHECK(h100->fp16_tflops == 989.5); // the sheet's 1,979 with sparsity, halved
  CHECK(h100->fp32_tflops == 67);
  CHECK(h100->source.find("https://") != std::string_view::npos);
  const auto pcie = peak("NVIDIA H100 PCIe");
  REQUIRE(pcie);
  CHECK(pcie->bandwidth_gbps == 2000);
  CHECK(pcie->fp16_tflops == 756.5);
  CHECK(pcie->fp32_tflops == 51);
  const auto nvl = peak("NVIDIA H100 NVL");
  REQUIRE(nvl);
  CHECK(nvl->bandwidth_gbps == 3900);
  CHECK(nvl->fp16_tflops == 835.5);
  const auto h200 = peak("NVIDIA H200");
  REQUIRE(h200);
  CHECK(h200->bandwidth_gbps == 4800);
  CHECK(h200->fp16_tflops == 989.5);
  const auto a100 = peak("NVIDIA A100-SXM4-80GB");
  REQUIRE(a100);
  CHECK(a100->bandwidth_gbps == 2039);
  CHECK(a100->fp16_tflops == 312);
  CHECK(a100->fp32_tflops == 19.5);
  CHECK(peak("NVIDIA A100-SXM4-40GB")->bandwidth_gbps == 1555);
  // Every SKU once, each with its sheet; its spellings agree.
  CHECK(zl::test::check_peak_table(k_table) == 9);
}
