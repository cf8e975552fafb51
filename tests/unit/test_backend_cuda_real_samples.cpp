// The nvidia-smi parser on every real output under tests/fixtures/smi/real/nvidia-smi (issue
// 10.22; sources in that folder's SOURCES.md). Outputs of other commands (-L, other --query-gpu
// fields) and the tool's failure messages must be refused with the line quoted, never misread.
#include "cuda_devices.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

using zl::backend_cuda::parse_nvidia_smi_csv;

namespace {

zl::sdk::ParseResult sample(const std::string& name)
{
  return parse_nvidia_smi_csv(zl::test::read_fixture("smi/real/nvidia-smi/" + name));
}

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("zl::backend_cuda::parse_nvidia_smi_csv on real outputs")
{
  constexpr uint64_t k_mib = uint64_t{1} << 20;
  SUBCASE("codeindex-55124687134: our query, with its header line (csv without noheader)")
  {
    const auto r = sample("codeindex-55124687134-rtx4080super-rtx3090-drv595-query-index-uuid-name-memtotal-csv.txt");
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[0].uuid == "GPU-e4252fcb-8ed4-ef11-71cd-d36a23871c75");
    CHECK(r.devices[0].name == "NVIDIA GeForce RTX 4080 SUPER");
    CHECK(r.devices[0].memory_bytes == 16376 * k_mib);
    CHECK(r.devices[1].index == 1);
    CHECK(r.devices[1].visibility_id == "GPU-358353dd-5933-1dc6-ac0d-e1189b063e4c");
  }
  SUBCASE("EDGE no devices: an empty list, not an error")
  {
    const auto r = sample("EDGE-open-gpu-kernel-modules-issue862-rtx5090-no-devices.txt");
    CHECK(r.ok());
    CHECK(r.devices.empty());
  }
  SUBCASE("a fifth field (memory.used) is another query: refused")
  {
    CHECK(has(sample("codeindex-60292320197-h200-141c-vgpu-x4-query-index-uuid-name-memtotal-memused-csv.txt").error,
              "has 5 fields, expected 4"));
    CHECK(has(sample("akash-provider-configs-issue81-quadro-rtx6000x2-query-name-memtotal-driver-devid-csv-noheader."
                     "txt")
                  .error,
              "index 'Quadro RTX 6000' is not a number"));
    CHECK(has(sample("akash-provider-configs-pr91-h100nvl-query-name-devid-csv-noheader.txt").error,
              "line 1 'NVIDIA H100 NVL, 0x232110DE' has 2 fields"));
  }
  SUBCASE("-L listings, MIG included, are refused with the line quoted")
  {
    for (const char* name : {"akash-provider-configs-pr12-quadro-rtx4000x2-drv535-L.txt",
                             "gpu-burn-issue89-rtx3080ti-x2-drv510-L-as-echoed-by-gpu_burn.txt",
                             "datadog-agent-pr33120-a100-sxm4-80gb-mig-7x1g.10gb-L.txt",
                             "nvidia-container-toolkit-issue203-a100-80gb-pcie-mig-2x3g.40gb-L.txt",
                             "telegraf-issue5812-a100-sxm4-80gb-x4-gpu0-mig-4x1g.20gb-L.txt",
                             "EDGE-cpu-x-issue115-gtx1660ti-drv430-L-USER-TRUNCATED.txt"}) {
      CAPTURE(name);
      const auto r = sample(name);
      CHECK(has(r.error, "line 1 'GPU 0: "));
      CHECK(r.devices.empty());
    }
  }
  SUBCASE("driver failures are quoted")
  {
    CHECK(has(sample("EDGE-gputil-issue55-nvml-mismatch-535-exit18.txt").error,
              "'Failed to initialize NVML: Driver/library version mismatch'"));
    CHECK(has(sample("EDGE-tinygrad-ogkm-issue47-nvml-driver-library-mismatch.txt").error,
              "'Failed to initialize NVML: Driver/library version mismatch'"));
    CHECK(has(sample("EDGE-shine-cluster-issue50-driver-not-communicating.txt").error,
              "'NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."));
    CHECK(has(sample("EDGE-syno-nvidia-driver-issue22-teslap4-device-handle-unknown-error.txt").error,
              "'Unable to determine the device handle for GPU0000:07:00.0: Unknown Error'"));
    CHECK(has(sample("EDGE-xxd3vin-workspace-issue19-2015-device-handle-unknown-error.txt").error,
              "'Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error'"));
  }
}
