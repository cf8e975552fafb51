// Moore Threads filter_visible (issue 10.2): the inherited mask read as the vendor runtime reads it, with
// a fake host holding the environment.
#include "musa_devices.hpp"

#include "visibility_helpers.hpp"

#include <doctest/doctest.h>

using zl::sdk::Device;
using zl::test::seen;
using zl::test::with_env;

TEST_CASE("zl::backend_musa::filter_visible")
{
  using Want = std::vector<std::string>;
  const std::vector<Device> gpus = {{0, "a", "MTT S5000", 0, "0"}, {1, "b", "MTT S4000", 0, "1"}};
  CHECK(seen(with_env<zl::backend_musa::filter_visible>(gpus, {{"MUSA_VISIBLE_DEVICES", "1"}}), gpus) == Want{"1=1"});
  // CUDA_VISIBLE_DEVICES does not mask MUSA devices (the backend unsets it in the child).
  CHECK_FALSE(with_env<zl::backend_musa::filter_visible>(gpus, {{"CUDA_VISIBLE_DEVICES", "1"}}).masked);
}
