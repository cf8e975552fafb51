// The ascend backend's spec-peak table (ascend_peaks.cpp): empty until a Huawei per-chip sheet
// can be cited, so a name from real tool output has no peak.
#include "ascend_devices.hpp"

#include "fixture.hpp"
#include "peak_helpers.hpp"

#include <doctest/doctest.h>

TEST_CASE("zl::backend_ascend::peaks: none, for want of a vendor sheet")
{
  const zl::devices::PeakTable table{zl::backend_ascend::peaks(), zl::backend_ascend::peak_count()};
  CHECK(table.count == 0);
  const std::string name = "910B";
  REQUIRE(
      zl::test::read_fixture("smi/real/npu-smi/codeindex-47328205758-atlas800-910A-x8-name-910B-npusmi2410-info.txt")
          .find(name) != std::string::npos);
  CHECK(zl::test::sku_in(table, name) == "");
}
