#include "devices/reading.hpp"

#include "util/error.hpp"

#include <zl/backend_abi.h>

#include <doctest/doctest.h>

using namespace zl::devices;

namespace {

Reading busy(unsigned sm, unsigned max)
{
  Reading r;
  r.at = 100, r.phase = Phase::during, r.sm_clock_mhz = sm, r.sm_clock_max_mhz = max, r.throttle = 0;
  return r;
}

} // namespace

TEST_CASE("throttle_cause: reasons, idle, application clocks and a sagging clock")
{
  CHECK_FALSE(throttle_cause(busy(1980, 1980)));
  CHECK_FALSE(throttle_cause(busy(1800, 1980))); // 91%: within
  CHECK(*throttle_cause(busy(1700, 1980)) == "SM clock 1700 MHz under 90% of its maximum 1980 MHz");
  auto idle = busy(345, 1980);
  idle.throttle = ZL_THROTTLE_IDLE;
  CHECK_FALSE(throttle_cause(idle)); // an idle device's clocks are down by design
  auto app = busy(1980, 1980);
  app.throttle = ZL_THROTTLE_APP_CLOCKS;
  CHECK_FALSE(throttle_cause(app));
  auto locked = busy(1400, 1980);
  locked.locked_mhz = 1410;
  CHECK_FALSE(throttle_cause(locked)); // judged against the lock, not the maximum
  locked.sm_clock_mhz = 1200;
  CHECK(*throttle_cause(locked) == "SM clock 1200 MHz under 90% of its locked 1410 MHz");
  auto power = busy(1980, 1980);
  power.throttle = ZL_THROTTLE_POWER | ZL_THROTTLE_IDLE;
  power.throttle_text = "SwPowerCap";
  CHECK(*throttle_cause(power) == "throttle reason power (SwPowerCap)");
  Reading unknown; // nothing read: nothing to say
  CHECK_FALSE(throttle_cause(unknown));
  CHECK(throttle_names(ZL_THROTTLE_THERMAL | (std::uint64_t{1} << 40)) ==
        std::vector<std::string>{"thermal", "bit 40"});
}

TEST_CASE("a reading's JSON line reads back the same, absent fields absent")
{
  Reading r = busy(1500, 1980);
  r.took_s = 0.002, r.device = "GPU-1", r.source = "NVML", r.reason = "nvmlDeviceGetPowerUsage returned 3";
  r.mem_clock_mhz = 2619, r.locked_mhz = 0, r.temperature_c = -5, r.power_limit_w = 700;
  r.throttle = ZL_THROTTLE_THERMAL, r.throttle_text = "HwThermalSlowdown", r.ecc = true, r.mig = false;
  r.driver = "550.54.15", r.firmware = "96.00.99";
  const auto line = to_json_line(r);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("power_w\"") == std::string::npos);
  rapidjson::Document doc;
  doc.Parse(line.c_str());
  const auto back = from_json(doc, "t");
  CHECK(to_json_line(back) == line);
  CHECK(back.phase == Phase::during);
  CHECK(back.temperature_c == -5);
  CHECK_FALSE(back.power_w.has_value());
  CHECK(back.ecc == true);
}

TEST_CASE("parse_readings keeps good lines and names the bad ones")
{
  const std::string good = to_json_line(busy(1, 2));
  const std::string text = good + "\n\n[1,2]\n{\"at\":1,\"phase\":\"later\"}\n{\"at\":\"x\"}\n{\"took_s\":1}\n" + good +
                           "\n" + good.substr(0, 20);
  std::vector<std::string> problems;
  const auto readings = parse_readings(text, "telemetry.jsonl", problems);
  CHECK(readings.size() == 2);
  REQUIRE(problems.size() == 5);
  CHECK(problems[0] == "telemetry.jsonl:3: not a JSON object");
  CHECK(problems[1] == "telemetry.jsonl:4: \"phase\" is 'later', not before, during, after or now");
  CHECK(problems[2] == "telemetry.jsonl:5: \"at\" is not a valid number");
  CHECK(problems[3] == "telemetry.jsonl:6: no \"at\" (the time of the reading)");
  CHECK(problems[4] == "telemetry.jsonl:8: not a JSON line (cut short)");
}
