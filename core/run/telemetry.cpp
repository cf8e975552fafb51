#include "run/telemetry.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace zl::run {

const char* const k_telemetry_help =
    "off, around (read the device's clocks, temperature, power and throttle reasons before and after each op) "
    "or every=S (also every S seconds while it runs, 0.05 to 3600)";
const char* const k_telemetry_default = "every=0.5";

namespace {

constexpr double k_min_interval = 0.05, k_max_interval = 3600;

[[noreturn]] void bad(const std::string& text, const std::string& why)
{
  throw Error(fmt::format("--telemetry '{}': {}. It takes {}.", text, why, k_telemetry_help));
}

template <typename T>
void keep_min(std::optional<T>& acc, T v)
{
  acc = acc ? std::min(*acc, v) : v;
}

template <typename T>
void keep_max(std::optional<T>& acc, T v)
{
  acc = acc ? std::max(*acc, v) : v;
}

// The device fields of the caliber and the versions: the last reading that says them.
void keep_state(TelemetrySummary& s, const devices::Reading& r)
{
  if (r.locked_mhz)
    s.locked_mhz = r.locked_mhz;
  if (r.power_limit_w)
    s.power_limit_w = r.power_limit_w;
  if (r.ecc)
    s.ecc = r.ecc;
  if (r.mig)
    s.mig = r.mig;
  if (r.sm_clock_max_mhz)
    s.sm_clock_max = r.sm_clock_max_mhz;
  if (!r.driver.empty())
    s.driver = r.driver;
  if (!r.firmware.empty())
    s.firmware = r.firmware;
}

} // namespace

TelemetrySpec parse_telemetry(const std::string& text)
{
  TelemetrySpec s;
  if (text == "off") {
    s.enabled = false;
    return s;
  }
  if (text == "around") {
    s.interval_s = 0;
    return s;
  }
  if (text.rfind("every=", 0) != 0) {
    bad(text, "it is none of these");
  }
  const auto value = text.substr(6);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno != 0 || !std::isfinite(v) || v < k_min_interval ||
      v > k_max_interval) {
    bad(text, fmt::format("every= takes seconds from {} to {}, not '{}'", k_min_interval, k_max_interval, value));
  }
  s.interval_s = v;
  return s;
}

std::string to_string(const TelemetrySpec& s)
{
  return !s.enabled ? "off" : s.interval_s <= 0 ? "around" : fmt::format("every={}", s.interval_s);
}

TelemetrySummary summarize(const std::vector<devices::Reading>& readings)
{
  TelemetrySummary s;
  double sm_sum = 0, power_sum = 0;
  std::size_t sm_n = 0, power_n = 0;
  for (const auto& r : readings) {
    ++s.readings;
    if (r.status != 0) {
      ++s.failed;
    }
    if (s.reason.empty() && !r.reason.empty()) {
      s.reason = r.reason;
    }
    if (!r.source.empty()) {
      s.source = r.source;
    }
    keep_state(s, r);
    const bool idle = (r.throttle.value_or(0) & ZL_THROTTLE_IDLE) != 0;
    if (r.sm_clock_mhz && !idle) { // an idle device's clocks say nothing of how it ran
      keep_min(s.sm_clock_min, *r.sm_clock_mhz), keep_max(s.sm_clock_max_seen, *r.sm_clock_mhz);
      sm_sum += *r.sm_clock_mhz, ++sm_n;
    }
    if (r.mem_clock_mhz && !idle)
      keep_min(s.mem_clock_min, *r.mem_clock_mhz);
    if (r.temperature_c)
      keep_max(s.temperature_max_c, *r.temperature_c);
    if (r.power_w) {
      keep_max(s.power_max_w, *r.power_w);
      power_sum += *r.power_w, ++power_n;
    }
    for (const auto& n : devices::throttle_names(r.throttle.value_or(0) & ~ZL_THROTTLE_IDLE)) {
      if (std::find(s.throttle_seen.begin(), s.throttle_seen.end(), n) == s.throttle_seen.end()) {
        s.throttle_seen.push_back(n);
      }
    }
    if (r.phase == devices::Phase::during && devices::throttle_cause(r)) {
      ++s.throttled_readings;
    }
  }
  if (sm_n > 0)
    s.sm_clock_mean = sm_sum / static_cast<double>(sm_n);
  if (power_n > 0)
    s.power_mean_w = power_sum / static_cast<double>(power_n);
  return s;
}

void write_summary(util::JsonWriter& j, const TelemetrySummary& s)
{
  j.field("readings", static_cast<unsigned long long>(s.readings));
  j.field("failed", static_cast<unsigned long long>(s.failed));
  j.nullable("source", s.source);
  j.nullable("reason", s.reason);
  j.nullable("sm_clock_min_mhz", s.sm_clock_min), j.nullable("sm_clock_mean_mhz", s.sm_clock_mean);
  j.nullable("sm_clock_max_seen_mhz", s.sm_clock_max_seen), j.nullable("sm_clock_max_mhz", s.sm_clock_max);
  j.nullable("mem_clock_min_mhz", s.mem_clock_min), j.nullable("temperature_max_c", s.temperature_max_c);
  j.nullable("power_mean_w", s.power_mean_w), j.nullable("power_max_w", s.power_max_w);
  j.nullable("power_limit_w", s.power_limit_w);
  j.nullable("clocks_locked", s.locked_mhz ? std::optional<bool>(*s.locked_mhz != 0) : std::nullopt);
  j.nullable("locked_mhz", s.locked_mhz ? s.locked_mhz : std::nullopt);
  j.nullable("ecc", s.ecc), j.nullable("mig", s.mig);
  j.nullable("driver", s.driver), j.nullable("firmware", s.firmware);
  j.strings("throttle_seen", s.throttle_seen);
  j.field("throttled_readings", static_cast<unsigned long long>(s.throttled_readings));
}

TelemetryRecorder::TelemetryRecorder(const loader::Module& backend, const loader::Device& device,
                                     const TelemetrySpec& spec, const std::string& file)
  : m_backend(backend), m_device(device), m_spec(spec)
{
  if (!m_spec.enabled) {
    return;
  }
  m_file = std::fopen(file.c_str(), "a");
  if (m_file == nullptr) {
    throw Error(fmt::format("cannot write {}: {}", file, std::strerror(errno)));
  }
  read(devices::Phase::before);
  if (m_spec.interval_s > 0 && m_backend.has_telemetry()) {
    m_thread = std::thread([this] { sample(); });
  }
}

TelemetryRecorder::~TelemetryRecorder()
{
  stop();
  if (m_file != nullptr) {
    std::fclose(m_file);
  }
}

void TelemetryRecorder::read(devices::Phase phase)
{
  auto r = m_backend.read_telemetry(m_device, phase);
  const std::lock_guard<std::mutex> lock(m_mutex);
  // A line at a time, flushed: what was read survives a run that is killed.
  const auto line = devices::to_json_line(r) + "\n";
  std::fwrite(line.data(), 1, line.size(), m_file);
  std::fflush(m_file);
  m_readings.push_back(std::move(r));
}

void TelemetryRecorder::sample()
{
  std::unique_lock<std::mutex> lock(m_mutex);
  for (;;) {
    // A tool that takes long to answer (an SMI run) is asked less often: the sampler keeps to a
    // tenth of one core whatever the interval, so it does not slow what it watches.
    const double took = m_readings.empty() ? 0 : m_readings.back().took_s;
    const auto wait = std::chrono::duration<double>(std::max(m_spec.interval_s, 10 * took));
    if (m_wake.wait_for(lock, wait, [this] { return m_stopping; })) {
      return;
    }
    lock.unlock();
    read(devices::Phase::during);
    lock.lock();
  }
}

void TelemetryRecorder::stop()
{
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

std::optional<TelemetrySummary> TelemetryRecorder::finish()
{
  if (!m_spec.enabled || m_finished) {
    return std::nullopt;
  }
  m_finished = true;
  stop();
  read(devices::Phase::after);
  return summarize(m_readings);
}

} // namespace zl::run
