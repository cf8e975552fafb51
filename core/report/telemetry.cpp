// The campaign view's device timeline: every reading of telemetry.jsonl of a caliber's runs (SM
// clock, temperature, power, and whether it says the device was slowed), on one time axis from
// the first reading, and the rows timed while the device was throttled.
#include "devices/reading.hpp"
#include "report/data.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zl::report {

using results::Run;

namespace {

// A campaign of 700 ops read every 0.5 s holds some 10^5 readings; a chart needs a few thousand.
// Every reading that names a cause is kept; the others are thinned evenly.
constexpr std::size_t k_max_points = 4000;
constexpr std::size_t k_max_rows = 500;

struct Timed
{
  devices::Reading reading;
  std::size_t op = 0; // index into the ops written
};

std::vector<Timed> read_all(const std::vector<const Run*>& runs, std::vector<std::string>& ops)
{
  std::vector<Timed> all;
  for (const auto* run : runs) {
    if (run->info.telemetry_file.empty()) {
      continue;
    }
    std::vector<std::string> problems; // zl summary reports them; the page draws what it can read
    std::vector<devices::Reading> readings;
    try {
      readings = devices::parse_readings(util::read_file(run->info.telemetry_file), run->info.telemetry_file, problems);
    } catch (const Error&) {
      continue;
    }
    ops.push_back(run->info.op);
    for (auto& r : readings) {
      all.push_back({std::move(r), ops.size() - 1});
    }
  }
  std::sort(all.begin(), all.end(), [](const Timed& a, const Timed& b) { return a.reading.at < b.reading.at; });
  return all;
}

void optional_number(Json& j, const std::optional<double>& v)
{
  if (v) {
    j.num(*v);
  } else {
    j.w().Null();
  }
}

void write_points(Json& j, const std::vector<Timed>& all)
{
  auto& w = j.w();
  const double start = all.front().reading.at;
  const std::size_t stride = std::max<std::size_t>(1, (all.size() + k_max_points - 1) / k_max_points);
  j.key("points"); // [seconds from start, op index, SM MHz, memory MHz, °C, W, cause or null]
  w.StartArray();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& r = all[i].reading;
    const auto cause = r.phase == devices::Phase::during ? devices::throttle_cause(r) : std::nullopt;
    if (i % stride != 0 && !cause) {
      continue;
    }
    w.StartArray();
    j.num(r.at - start), w.Uint64(all[i].op);
    optional_number(j, r.sm_clock_mhz ? std::optional<double>(*r.sm_clock_mhz) : std::nullopt);
    optional_number(j, r.mem_clock_mhz ? std::optional<double>(*r.mem_clock_mhz) : std::nullopt);
    optional_number(j, r.temperature_c ? std::optional<double>(*r.temperature_c) : std::nullopt);
    optional_number(j, r.power_w);
    if (cause) {
      j.str(*cause);
    } else {
      w.Null();
    }
    w.EndArray();
  }
  w.EndArray();
}

void write_throttled_rows(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  auto& w = j.w();
  std::size_t n = 0;
  j.key("throttled"); // [op, dtype, shape, where], the first k_max_rows
  w.StartArray();
  for (const auto* run : runs) {
    for (const auto& r : run->rows) {
      if (r.throttled && n++ < k_max_rows) {
        w.StartArray();
        j.str(shown(r.op(), cut)), j.str(shown(r.dtype(), cut)), j.str(shown(r.shape, cut));
        j.str(shown(run->info.path, cut));
        w.EndArray();
      }
    }
  }
  w.EndArray();
  j.field("throttled_rows", n);
}

} // namespace

void write_telemetry(Json& j, const std::vector<const Run*>& runs, std::size_t* cut)
{
  std::vector<std::string> ops;
  const auto all = read_all(runs, ops);
  j.key("telemetry");
  if (all.empty()) {
    j.w().Null();
    return;
  }
  auto& w = j.w();
  w.StartObject();
  j.field("readings", all.size());
  j.key("ops");
  w.StartArray();
  for (const auto& op : ops) {
    j.str(shown(op, cut));
  }
  w.EndArray();
  write_points(j, all);
  write_throttled_rows(j, runs, cut);
  std::string cause;
  for (const auto* run : runs) {
    if (cause.empty()) {
      cause = run->info.throttle_cause;
    }
  }
  j.field("cause", cause);
  w.EndObject();
}

} // namespace zl::report
