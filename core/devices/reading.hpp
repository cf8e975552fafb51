// One reading of a device's state (the backend's read_telemetry), as zl keeps it: in
// telemetry.jsonl beside a run's records, one JSON object a line, and in the identity's summary.
// Rows are judged throttled from the readings taken while they were timed.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::devices {

// When a reading was taken, relative to the op it describes.
enum class Phase { before, during, after, now };

std::string_view name(Phase phase);

struct Reading
{
  double at = 0;     // seconds since the epoch, the middle of the read
  double took_s = 0; // how long the backend took to answer
  Phase phase = Phase::now;
  std::string device; // the device's UUID
  int status = 0;     // the backend's zl_status
  std::string source; // what answered ("NVML", "rocm-smi")
  std::string reason; // what could not be read
  std::optional<unsigned> sm_clock_mhz, sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz;
  std::optional<unsigned> locked_mhz; // 0: not locked
  std::optional<int> temperature_c;
  std::optional<double> power_w, power_limit_w;
  std::optional<std::uint64_t> throttle; // ZL_THROTTLE_* bits
  std::string throttle_text;
  std::optional<bool> ecc, mig;
  std::string driver, firmware;
};

// The names of ZL_THROTTLE_* bits ("idle", "power", …); an unknown bit as "bit N".
std::vector<std::string> throttle_names(std::uint64_t bits);

// Why a reading taken while a row was timed says the device ran slowed, or nothing: a throttle
// reason other than idle and application clocks (a lock is the caliber's business, recorded on
// its own), or, on a device not idle, an SM clock under 90% of its locked value, else of its
// maximum (nvbench discards such samples too, at a threshold of its own).
std::optional<std::string> throttle_cause(const Reading& r);

// One line of telemetry.jsonl (no newline), and back. from_json throws Error naming `where` for
// an object that is not a reading.
std::string to_json_line(const Reading& r);
Reading from_json(const rapidjson::Value& v, const std::string& where);

// A run's readings: telemetry.jsonl's lines. A line cut short (an interrupted run) or not a
// reading is left out and described in `problems` ("telemetry.jsonl:3: …"); the rest are kept.
std::vector<Reading> parse_readings(std::string_view text, const std::string& file, std::vector<std::string>& problems);

} // namespace zl::devices
