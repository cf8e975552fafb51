// The device's state around a run: read through the backend's read_telemetry before pytest
// starts, every interval while it runs (a thread), and after it ends; kept line by line in
// telemetry.jsonl (an interrupted run keeps what was read) and summarized in the identity.
#pragma once

#include "devices/reading.hpp"
#include "loader/module.hpp"
#include "util/json.hpp"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace zl::run {

// --telemetry: "off", "around" (before and after the run only) or "every=S" (also every S
// seconds while it runs, 0.05 to 3600).
struct TelemetrySpec
{
  bool enabled = true;
  double interval_s = 0.5; // 0: around only
};

extern const char* const k_telemetry_help;
extern const char* const k_telemetry_default;

// Throws Error (exit 2) naming --telemetry, what is wrong and what it accepts.
TelemetrySpec parse_telemetry(const std::string& text);
std::string to_string(const TelemetrySpec& s);

// What a run's readings say, for the identity: the clocks it ran at, the heat and power, the
// caliber's device fields (lock, power limit, ECC, MIG) and every throttle seen.
struct TelemetrySummary
{
  std::size_t readings = 0, failed = 0;
  std::string source, reason; // the last answer's source; the first failure's reason
  std::optional<unsigned> sm_clock_min, sm_clock_max_seen, sm_clock_max, mem_clock_min;
  std::optional<double> sm_clock_mean, power_mean_w;
  std::optional<int> temperature_max_c;
  std::optional<double> power_max_w, power_limit_w;
  std::optional<unsigned> locked_mhz;
  std::optional<bool> ecc, mig;
  std::string driver, firmware;
  std::vector<std::string> throttle_seen; // names of every reason seen but idle, in first-seen order
  std::size_t throttled_readings = 0;     // readings during the run with a throttle_cause
};

TelemetrySummary summarize(const std::vector<devices::Reading>& readings);
void write_summary(util::JsonWriter& j, const TelemetrySummary& s);

class TelemetryRecorder
{
public:
  // Reads "before" and starts the sampler; does nothing where spec is off. file: telemetry.jsonl.
  TelemetryRecorder(const loader::Module& backend, const loader::Device& device, const TelemetrySpec& spec,
                    const std::string& file);
  ~TelemetryRecorder();
  TelemetryRecorder(const TelemetryRecorder&) = delete;
  TelemetryRecorder& operator=(const TelemetryRecorder&) = delete;

  // Stops the sampler, reads "after", and summarizes every reading; none when spec is off.
  std::optional<TelemetrySummary> finish();

private:
  void read(devices::Phase phase);
  void sample();
  void stop();

  const loader::Module& m_backend;
  loader::Device m_device;
  TelemetrySpec m_spec;
  std::FILE* m_file = nullptr;
  std::vector<devices::Reading> m_readings;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stopping = false;
  bool m_finished = false;
  std::thread m_thread;
};

} // namespace zl::run
