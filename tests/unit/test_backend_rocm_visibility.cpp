// AMD filter_visible (issue 10.2): the inherited mask read as the vendor runtime reads it, with
// a fake host holding the environment.
#include "rocm_devices.hpp"

#include "visibility_helpers.hpp"

#include <doctest/doctest.h>

using zl::sdk::Device;
using zl::test::seen;
using zl::test::with_env;

TEST_CASE("zl::backend_rocm::filter_visible")
{
  using Want = std::vector<std::string>;
  const std::vector<Device> gpus = {{0, "u0", "MI300X", 0, "GPU-5c88007d760374f3"},
                                    {1, "u1", "MI300X", 0, "GPU-0a7e3c91b2d41234"},
                                    {2, "u2", "MI300X", 0, "2"}};
  const auto mask = [&](std::initializer_list<std::pair<std::string, std::string>> env) {
    return seen(with_env<zl::backend_rocm::filter_visible>(gpus, env), gpus);
  };
  SUBCASE("ROCR takes indices and GPU-<serial>; the pin is always the UUID")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "GPU-5C88007D760374F3"}}) == Want{"0=GPU-5c88007d760374f3"});
  }
  SUBCASE("HIP indices count the GPUs ROCR left; CUDA_VISIBLE_DEVICES stands in for HIP only when HIP is unset")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "1,0"}, {"HIP_VISIBLE_DEVICES", "1"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({{"CUDA_VISIBLE_DEVICES", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
    CHECK(mask({{"HIP_VISIBLE_DEVICES", "0"}, {"CUDA_VISIBLE_DEVICES", "1"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({{"GPU_DEVICE_ORDINAL", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
  }
  SUBCASE("a GPU without a ROCr UUID cannot be pinned inside a mask")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "2,0"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({}) == Want{"0=GPU-5c88007d760374f3", "1=GPU-0a7e3c91b2d41234", "2=2"});
  }
}
