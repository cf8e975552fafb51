// NVIDIA filter_visible (issue 10.2): the inherited mask read as the vendor runtime reads it, with
// a fake host holding the environment.
#include "cuda_devices.hpp"

#include "visibility_helpers.hpp"

#include <doctest/doctest.h>

using zl::sdk::Device;
using zl::test::seen;
using zl::test::with_env;

namespace {

const std::string k_gpu0 = "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c";
const std::string k_gpu1 = "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c";

std::vector<Device> cuda_gpus()
{
  return {{0, k_gpu0, "H100", 0, k_gpu0}, {1, k_gpu1, "RTX 4090", 0, k_gpu1}};
}

} // namespace

TEST_CASE("zl::backend_cuda::filter_visible")
{
  const auto gpus = cuda_gpus();
  using Want = std::vector<std::string>;
  SUBCASE("no mask: every GPU, pinned by UUID")
  {
    const auto v = with_env<zl::backend_cuda::filter_visible>(gpus, {});
    CHECK_FALSE(v.masked);
    CHECK(seen(v, gpus) == Want{"0=" + k_gpu0, "1=" + k_gpu1});
  }
  SUBCASE("index, UUID, unique prefix, MIG id; the mask's order is CUDA's")
  {
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "1,0"}}), gpus) ==
          Want{"1=" + k_gpu1, "0=" + k_gpu0});
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", k_gpu1}}), gpus) ==
          Want{"1=" + k_gpu1});
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "GPU-a4"}}), gpus) ==
          Want{"1=" + k_gpu1});
    const std::string mig = "MIG-" + k_gpu0 + "/2/0";
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", mig}}), gpus) ==
          Want{"0=" + mig});
  }
  SUBCASE("CUDA stops at the first invalid entry, and says so")
  {
    const auto v = with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "0,7,1"}});
    CHECK(v.masked);
    CHECK(v.mask == "CUDA_VISIBLE_DEVICES=0,7,1");
    CHECK(seen(v, gpus) == Want{"0=" + k_gpu0});
    CHECK(v.note.find("entry 2 '7' names no device (the indices are 0, 1)") != std::string::npos);
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "GPU-,1"}}), gpus).empty());
    CHECK(seen(with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "MIG-abc"}}), gpus).empty());
  }
  SUBCASE("the empty value hides every GPU; a GPU named twice counts once")
  {
    const auto empty = with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", ""}});
    CHECK(empty.masked);
    CHECK(empty.visible.empty());
    CHECK(empty.note == "CUDA_VISIBLE_DEVICES is set but empty, which hides every device");
    const auto twice = with_env<zl::backend_cuda::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "1," + k_gpu1}});
    CHECK(seen(twice, gpus) == Want{"1=" + k_gpu1});
    CHECK(twice.note.find("names a device already listed") != std::string::npos);
  }
}
