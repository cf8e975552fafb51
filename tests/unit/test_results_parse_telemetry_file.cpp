#include "results/parse/telemetry_file.hpp"

#include <zl/backend_abi.h>

#include <doctest/doctest.h>

using namespace zl::results;
using zl::devices::Phase;
using zl::devices::Reading;

namespace {

// A run of three rows timed one after another: [10, 11], [12, 13] (torch [12, 12.5], FlagGems
// [12.5, 13]) and a row without samples.
Run three_rows()
{
  Run run;
  run.rows.resize(3);
  auto set = [&run](double t0, float last) {
    SampleSet s;
    s.t0 = t0, s.ms = {1, 1}, s.at_s = {last / 2, last};
    run.samples.push_back(s);
    return static_cast<std::int32_t>(run.samples.size() - 1);
  };
  run.rows[0].gems_samples = set(10, 1);
  run.rows[1].torch_samples = set(12, 0.5f);
  run.rows[1].gems_samples = set(12.5, 0.5f);
  return run;
}

Reading at(double t, Phase phase, std::uint64_t throttle)
{
  Reading r;
  r.at = t, r.phase = phase, r.throttle = throttle, r.throttle_text = throttle == ZL_THROTTLE_POWER ? "SwPowerCap" : "";
  return r;
}

} // namespace

TEST_CASE("mark_throttled: a reading inside a row's time marks it, one outside does not")
{
  auto run = three_rows();
  parse::mark_throttled(run, {at(10.5, Phase::during, 0), at(11.5, Phase::during, ZL_THROTTLE_POWER),
                              at(12.9, Phase::during, ZL_THROTTLE_THERMAL)});
  CHECK_FALSE(run.rows[0].throttled);
  CHECK(run.rows[1].throttled);
  CHECK_FALSE(run.rows[2].throttled);
  CHECK(run.info.throttled_rows == 1);
  CHECK(run.info.throttle_cause == "throttle reason thermal");
}

TEST_CASE("mark_throttled: the edges of a window count, before/after and idle readings do not")
{
  auto run = three_rows();
  parse::mark_throttled(run, {at(10, Phase::during, ZL_THROTTLE_POWER), at(12.2, Phase::after, ZL_THROTTLE_POWER),
                              at(12.4, Phase::during, ZL_THROTTLE_IDLE)});
  CHECK(run.rows[0].throttled);
  CHECK_FALSE(run.rows[1].throttled);
  CHECK(run.info.throttle_cause == "throttle reason power (SwPowerCap)");
  auto sag = three_rows();
  Reading slow = at(12.6, Phase::during, 0);
  slow.sm_clock_mhz = 900, slow.sm_clock_max_mhz = 1980;
  parse::mark_throttled(sag, {slow});
  CHECK(sag.rows[1].throttled);
  CHECK(sag.info.throttle_cause == "SM clock 900 MHz under 90% of its maximum 1980 MHz");
}

TEST_CASE("mark_throttled: a measured row without samples is unplaced when the device was slowed")
{
  auto run = three_rows();
  run.rows[2].success = true, run.rows[2].gems_ms = 1.0; // measured, but no samples: no window
  parse::mark_throttled(run, {at(10.5, Phase::during, 0)});
  CHECK(run.info.unplaced_rows == 0); // nothing slowed: nothing to be unsure of
  parse::mark_throttled(run, {at(20, Phase::during, ZL_THROTTLE_POWER)});
  CHECK_FALSE(run.rows[2].throttled);
  CHECK(run.info.unplaced_rows == 1);
  CHECK(run.info.unplaced_cause == "throttle reason power (SwPowerCap)");
}
