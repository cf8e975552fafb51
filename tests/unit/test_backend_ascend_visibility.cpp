// Ascend filter_visible (issue 10.2): the inherited mask read as the vendor runtime reads it, with
// a fake host holding the environment.
#include "ascend_devices.hpp"

#include "visibility_helpers.hpp"

#include <doctest/doctest.h>

using zl::sdk::Device;
using zl::test::seen;
using zl::test::with_env;

TEST_CASE("zl::backend_ascend::filter_visible")
{
  using Want = std::vector<std::string>;
  std::vector<Device> chips;
  for (uint32_t i = 0; i < 4; ++i) {
    chips.push_back({i, "npu" + std::to_string(i) + "-chip0", "Ascend 910B4", 0, std::to_string(i)});
  }
  const auto mask = [&](const std::string& value) {
    return with_env<zl::backend_ascend::filter_visible>(chips, {{"ASCEND_RT_VISIBLE_DEVICES", value}});
  };
  // The documented examples (docs/vendor-facts.md §4.2): "1, 2,3" gives 1 and "1,3,8" gives 1,3.
  CHECK(seen(mask("1, 2,3"), chips) == Want{"1=1"});
  CHECK(seen(mask("1,3,8"), chips) == Want{"1=1", "3=3"});
  CHECK(seen(mask("2"), chips) == Want{"2=2"});
  const auto descending = mask("2,1");
  CHECK(seen(descending, chips) == Want{"2=2"});
  CHECK(descending.note.find("does not ascend") != std::string::npos);
  CHECK(descending.note.find("CANN stops reading there") != std::string::npos);
}
