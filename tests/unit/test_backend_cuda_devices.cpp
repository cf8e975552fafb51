// NVIDIA enumeration: the nvidia-smi CSV parser on constructed outputs, and enumerate() with a fake
// host for every fallback (NVML absent or failing, nvidia-smi missing, failing or garbled).
#include "cuda_devices.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_cuda;
using zl::test::Enumeration;
using zl::test::FakeVendorHost;
using zl::test::read_fixture;

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;
constexpr uint64_t k_gib = k_mib << 10;
const std::string k_smi = "nvidia-smi --query-gpu=index,uuid,name,memory.total --format=csv,noheader,nounits";

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

LibraryResult nvml_absent()
{
  LibraryResult r;
  r.detail = "libnvidia-ml.so.1: cannot open shared object file: No such file or directory";
  return r;
}

LibraryResult nvml_failing()
{
  LibraryResult r;
  r.state = LibraryResult::State::failed;
  r.detail = "nvmlInit_v2 returned 9";
  return r;
}

LibraryResult nvml_one_gpu()
{
  LibraryResult r;
  r.state = LibraryResult::State::ok;
  r.devices.push_back({3, "GPU-0000aaaa-1111-2222-3333-444455556666", "NVIDIA A100-SXM4-40GB", 40 * k_gib,
                       "GPU-0000aaaa-1111-2222-3333-444455556666"});
  return r;
}

} // namespace

TEST_CASE("zl::backend_cuda::parse_nvidia_smi_csv")
{
  SUBCASE("two GPUs")
  {
    const auto r = parse_nvidia_smi_csv(read_fixture("smi/cuda/nvidia-smi-csv-2gpu.txt"));
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[0].index == 0);
    CHECK(r.devices[0].uuid == "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c");
    CHECK(r.devices[0].name == "NVIDIA H100 80GB HBM3");
    CHECK(r.devices[0].memory_bytes == 81559 * k_mib);
    CHECK(r.devices[0].visibility_id == "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c");
    CHECK(r.devices[1].index == 1);
    CHECK(r.devices[1].uuid == "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c");
    CHECK(r.devices[1].name == "NVIDIA GeForce RTX 4090");
    CHECK(r.devices[1].memory_bytes == 24564 * k_mib);
    CHECK(r.devices[1].visibility_id == r.devices[1].uuid);
  }
  SUBCASE("empty output lists nothing")
  {
    const auto r = parse_nvidia_smi_csv(read_fixture("smi/cuda/nvidia-smi-csv-empty.txt"));
    CHECK(r.ok());
    CHECK(r.devices.empty());
  }
  SUBCASE("truncated output quotes the cut line")
  {
    const auto r = parse_nvidia_smi_csv(read_fixture("smi/cuda/nvidia-smi-csv-truncated.txt"));
    REQUIRE_FALSE(r.ok());
    CHECK(has(r.error, "ends mid-line"));
    CHECK(has(r.error, "line 2 '1, GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c, NVIDIA GeForce RTX 4090, 245'"));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_nvidia_smi_csv(read_fixture("smi/cuda/nvidia-smi-csv-garbage.txt"));
    REQUIRE_FALSE(r.ok());
    CHECK(has(r.error, "line 1 'NVIDIA-SMI has failed because it couldn't communicate"));
    CHECK(has(r.error, "expected 4"));
  }
  SUBCASE("a MiB suffix, [N/A] memory, CRLF and MIG UUIDs are accepted")
  {
    const auto r = parse_nvidia_smi_csv("0, GPU-1, Tesla T4, 15360 MiB\r\n1, MIG-GPU-2/1/0, NVIDIA A100, [N/A]\r\n");
    REQUIRE(r.ok());
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[0].memory_bytes == 15360 * k_mib);
    CHECK(r.devices[1].uuid == "MIG-GPU-2/1/0");
    CHECK(r.devices[1].memory_bytes == 0);
  }
  SUBCASE("a non-numeric index or memory is refused with the line")
  {
    auto r = parse_nvidia_smi_csv("zero, GPU-1, Tesla T4, 15360\n");
    CHECK(has(r.error, "line 1 'zero, GPU-1, Tesla T4, 15360': index 'zero' is not a number"));
    r = parse_nvidia_smi_csv("0, GPU-1, Tesla T4, 15 GB\n");
    CHECK(has(r.error, "memory.total '15 GB'"));
    r = parse_nvidia_smi_csv("0, GPU-1, , 15360\n");
    CHECK(has(r.error, "empty uuid or name"));
  }
}

TEST_CASE("zl::backend_cuda::enumerate")
{
  FakeVendorHost host;
  Enumeration e;

  SUBCASE("nvidia-smi answers when NVML is absent")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-csv-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "nvidia-smi");
    CHECK(e.reason().empty());
    CHECK(e.devices[1].index == 1);
    CHECK(std::string(e.devices[1].uuid) == "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c");
    CHECK(std::string(e.devices[1].name) == "NVIDIA GeForce RTX 4090");
    CHECK(e.devices[1].memory_bytes == 24564 * k_mib);
    CHECK(std::string(e.devices[1].visibility_id) == "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c");
    CHECK(e.devices[1].reserved == 0);
  }
  SUBCASE("the real library step: NVML is not installed here, so nvidia-smi answers")
  {
    if (query_nvml().state != LibraryResult::State::absent) {
      MESSAGE("libnvidia-ml.so.1 is loadable on this machine; skipping the tool-path check");
      return;
    }
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-csv-2gpu.txt"));
    REQUIRE(enumerate(host.api(), &e.out) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(host.calls() == std::vector<std::string>{k_smi});
  }
  SUBCASE("nvidia-smi missing: no devices, and the reason names the tool and the library")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "nvidia-smi not found on PATH"));
    CHECK(has(e.reason(), "libnvidia-ml.so.1 not loadable (libnvidia-ml.so.1: cannot open shared object file"));
  }
  SUBCASE("nvidia-smi exits non-zero: its exit code and first line")
  {
    host.on(k_smi, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nmore\n", 9);
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "nvidia-smi exited with code 9: 'NVIDIA-SMI has failed because"));
    CHECK_FALSE(has(e.reason(), "more"));
  }
  SUBCASE("nvidia-smi killed on timeout")
  {
    host.refuse(k_smi, ZL_ERR_TOOL_FAILED, "nvidia-smi did not finish within 20000 ms and was killed");
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(has(e.reason(), "did not finish within 20000 ms"));
  }
  SUBCASE("garbled output is a parse error quoting the line")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-csv-garbage.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_ERR_PARSE);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "'NVIDIA-SMI has failed because it couldn't communicate"));
  }
  SUBCASE("empty output: no devices")
  {
    host.on(k_smi, "");
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "nvidia-smi lists no GPU"));
  }
  SUBCASE("NVML present but failing: nvidia-smi answers and the failure is reported")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-csv-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_failing) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(e.source() == "nvidia-smi (NVML failed)");
    CHECK(has(e.reason(), "NVML failed (nvmlInit_v2 returned 9)"));
  }
  SUBCASE("NVML failing and nvidia-smi missing")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_failing) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "nvidia-smi not found on PATH and NVML failed (nvmlInit_v2 returned 9)"));
  }
  SUBCASE("NVML answers: nvidia-smi is not run")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &nvml_one_gpu) == ZL_OK);
    REQUIRE(e.out.count == 1);
    CHECK(e.source() == "NVML (libnvidia-ml.so.1)");
    CHECK(e.devices[0].index == 3);
    CHECK(std::string(e.devices[0].visibility_id) == "GPU-0000aaaa-1111-2222-3333-444455556666");
    CHECK(host.calls().empty());
  }
  SUBCASE("more devices than capacity: count says all, only capacity are filled")
  {
    Enumeration small(1);
    small.devices.push_back(zl_device_info{}); // a sentinel just past the capacity
    small.out.devices = small.devices.data();
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-csv-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &small.out, &nvml_absent) == ZL_OK);
    CHECK(small.out.count == 2);
    CHECK(std::string(small.devices[0].name) == "NVIDIA H100 80GB HBM3");
    CHECK(std::string(small.devices[1].name).empty());
  }
}
