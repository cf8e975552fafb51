// The musa backend's spec-peak table (musa_peaks.cpp): empty until a Moore Threads sheet can be
// cited, so a name from real tool output has no peak.
#include "musa_devices.hpp"

#include "fixture.hpp"
#include "peak_helpers.hpp"

#include <doctest/doctest.h>

TEST_CASE("zl::backend_musa::peaks: none, for want of a vendor sheet")
{
  const zl::devices::PeakTable table{zl::backend_musa::peaks(), zl::backend_musa::peak_count()};
  CHECK(table.count == 0);
  const std::string name = "MTT S4000";
  REQUIRE(zl::test::read_fixture("smi/real/mthreads-gmi/gpustack-issue3511-s4000-x8-gmi2.2.0-drv3.0.0-perf-NA-"
                                 "TRUNCATED.txt")
              .find(name) != std::string::npos);
  CHECK(zl::test::sku_in(table, name) == "");
}
