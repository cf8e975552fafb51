#include "run/telemetry.hpp"

#include "util/error.hpp"

#include <zl/backend_abi.h>

#include <doctest/doctest.h>

using namespace zl::run;
using zl::devices::Phase;
using zl::devices::Reading;

TEST_CASE("parse_telemetry: off, around, every=S; refusals name --telemetry")
{
  CHECK_FALSE(parse_telemetry("off").enabled);
  CHECK(parse_telemetry("around").interval_s == 0);
  CHECK(parse_telemetry("every=0.25").interval_s == doctest::Approx(0.25));
  CHECK(to_string(parse_telemetry(k_telemetry_default)) == k_telemetry_default);
  CHECK(to_string(parse_telemetry("around")) == "around");
  CHECK(to_string(parse_telemetry("off")) == "off");
  for (const char* bad : {"", "on", "every=", "every=0", "every=0.01", "every=1e9", "every=nan", "every=1s", "Off"}) {
    CAPTURE(bad);
    try {
      parse_telemetry(bad);
      FAIL("accepted");
    } catch (const zl::Error& e) {
      CHECK(std::string(e.what()).rfind(fmt::format("--telemetry '{}': ", bad), 0) == 0);
    }
  }
}

TEST_CASE("summarize: clocks of a busy device, the hottest, the caliber's fields, every throttle")
{
  std::vector<Reading> rs(4);
  rs[0].phase = Phase::before, rs[0].sm_clock_mhz = 345, rs[0].throttle = ZL_THROTTLE_IDLE, rs[0].temperature_c = 30;
  rs[1].phase = Phase::during, rs[1].sm_clock_mhz = 1980, rs[1].sm_clock_max_mhz = 1980, rs[1].throttle = 0;
  rs[1].power_w = 600, rs[1].power_limit_w = 700, rs[1].ecc = true, rs[1].locked_mhz = 0, rs[1].temperature_c = 70;
  rs[2].phase = Phase::during, rs[2].sm_clock_mhz = 1500, rs[2].sm_clock_max_mhz = 1980;
  rs[2].throttle = ZL_THROTTLE_POWER, rs[2].power_w = 700, rs[2].temperature_c = 75, rs[2].driver = "550";
  rs[3].phase = Phase::after, rs[3].status = ZL_ERR_TOOL_FAILED, rs[3].reason = "nvidia-smi exited with code 9";
  const auto s = summarize(rs);
  CHECK(s.readings == 4);
  CHECK(s.failed == 1);
  CHECK(s.reason == "nvidia-smi exited with code 9");
  CHECK(s.sm_clock_min == 1500u); // the idle 345 MHz says nothing of how the ops ran
  CHECK(*s.sm_clock_mean == doctest::Approx(1740));
  CHECK(s.sm_clock_max == 1980u);
  CHECK(s.temperature_max_c == 75);
  CHECK(*s.power_mean_w == doctest::Approx(650));
  CHECK(s.power_limit_w == 700.0);
  CHECK(s.locked_mhz == 0u);
  CHECK(s.ecc == true);
  CHECK_FALSE(s.mig.has_value());
  CHECK(s.driver == "550");
  CHECK(s.throttle_seen == std::vector<std::string>{"power"});
  CHECK(s.throttled_readings == 1);
  CHECK(summarize({}).readings == 0);
}
