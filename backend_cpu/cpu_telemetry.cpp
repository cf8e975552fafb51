// Host telemetry (read_telemetry, ABI 1.2): what Linux's sysfs says of the processors' clocks and
// temperature, and the kernel release. Every source, and what is left unread on purpose, is in
// README.md in this folder.
#include "cpu_devices.hpp"

#include <zl/sdk/reason.hpp>
#include <zl/sdk/text.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/utsname.h>
#include <utility>
#include <vector>

namespace zl::backend_cpu {

namespace {

namespace fs = std::filesystem;

// A sysfs file's text, trimmed; nothing when it is absent or cannot be read (some thermal zones
// answer a read with an error).
std::optional<std::string> read_text(const fs::path& path)
{
  std::ifstream in(path);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    return std::nullopt;
  }
  return std::string(sdk::trim(buf.str()));
}

// The entries of dir named prefix followed by a number (cpu0, thermal_zone3), in numeric order.
// cpufreq, cpuidle and the like do not match.
std::vector<fs::path> numbered(const fs::path& dir, std::string_view prefix)
{
  std::vector<std::pair<uint64_t, fs::path>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    uint64_t n = 0;
    const auto digits = std::string_view(name).substr(std::min(prefix.size(), name.size()));
    if (sdk::starts_with(name, prefix) && digits == sdk::trim(digits) && sdk::parse_u64(digits, n)) {
      found.emplace_back(n, it->path());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [n, path] : found) {
    out.push_back(std::move(path));
  }
  return out;
}

bool parse_signed(std::string_view v, int64_t& out)
{
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  return !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size();
}

// One cpufreq file over every CPU: the values (kHz) that parsed, and the first that did not.
struct PerCpu
{
  std::vector<uint64_t> khz;
  std::string bad; // "<file> holds '<text>'"
};

PerCpu read_per_cpu(const std::vector<fs::path>& cpus, const char* file)
{
  PerCpu r;
  for (const auto& cpu : cpus) {
    const fs::path path = cpu / "cpufreq" / file;
    const auto text = read_text(path);
    uint64_t khz = 0;
    if (text && sdk::parse_u64(*text, khz)) {
      r.khz.push_back(khz);
    } else if (text && r.bad.empty()) {
      r.bad = path.string() + " holds " + sdk::quote(*text) + ", not a frequency in kHz";
    }
  }
  return r;
}

uint32_t mhz(double khz)
{
  return static_cast<uint32_t>(std::lround(khz / 1000.0));
}

// Why a cpufreq value is unread: the first unparsable file, else the pattern no CPU has.
std::string cpufreq_note(const PerCpu& values, const fs::path& cpu_dir, const char* file)
{
  return !values.bad.empty() ? values.bad : "no " + (cpu_dir / "cpu*" / "cpufreq" / file).string();
}

// The SM clock is the mean of scaling_cur_freq over the CPUs, not the minimum: idle cores sit at
// their lowest frequency on any host with idle cores, so the minimum would say nothing of the
// cores that run the work. The maximum is the highest cpuinfo_max_freq (hybrid parts differ
// by core). No memory clock: Linux exposes none.
void read_cpufreq(const fs::path& sys, sdk::Telemetry& t, std::vector<std::string>& notes)
{
  const fs::path cpu_dir = sys / "devices" / "system" / "cpu";
  const auto cpus = numbered(cpu_dir, "cpu");
  if (cpus.empty()) {
    notes.push_back("no " + (cpu_dir / "cpu*").string());
    return;
  }
  const bool any_cpufreq = std::any_of(cpus.begin(), cpus.end(), [](const fs::path& cpu) {
    std::error_code ec;
    return fs::is_directory(cpu / "cpufreq", ec);
  });
  if (!any_cpufreq) {
    notes.push_back("no " + (cpu_dir / "cpu*" / "cpufreq").string() +
                    " (no cpufreq driver: usual in VMs and containers)");
    return;
  }
  const PerCpu cur = read_per_cpu(cpus, "scaling_cur_freq");
  if (!cur.khz.empty() && !cur.bad.empty()) {
    notes.push_back(cur.bad + " (left out of the mean)");
  }
  if (!cur.khz.empty()) {
    double sum = 0;
    for (uint64_t v : cur.khz) {
      sum += static_cast<double>(v);
    }
    t.sm_clock_mhz = mhz(sum / static_cast<double>(cur.khz.size()));
  } else {
    notes.push_back(cpufreq_note(cur, cpu_dir, "scaling_cur_freq"));
  }
  const PerCpu max = read_per_cpu(cpus, "cpuinfo_max_freq");
  if (!max.khz.empty()) {
    t.sm_clock_max_mhz = mhz(static_cast<double>(*std::max_element(max.khz.begin(), max.khz.end())));
  } else {
    notes.push_back(cpufreq_note(max, cpu_dir, "cpuinfo_max_freq"));
  }
}

// The package sensor (type x86_pkg_temp; the hottest where there are several sockets), else the
// hottest zone of any type. Zones report millidegrees Celsius.
void read_temperature(const fs::path& sys, sdk::Telemetry& t, std::vector<std::string>& notes)
{
  const fs::path thermal = sys / "class" / "thermal";
  std::optional<int64_t> package;
  std::optional<int64_t> hottest;
  std::string bad;
  for (const auto& zone : numbered(thermal, "thermal_zone")) {
    const auto text = read_text(zone / "temp");
    int64_t milli = 0;
    if (!text || !parse_signed(*text, milli)) {
      if (text && bad.empty()) {
        bad = (zone / "temp").string() + " holds " + sdk::quote(*text) + ", not millidegrees";
      }
      continue;
    }
    hottest = std::max(hottest.value_or(milli), milli);
    if (read_text(zone / "type").value_or("") == "x86_pkg_temp") {
      package = std::max(package.value_or(milli), milli);
    }
  }
  if (const auto milli = package ? package : hottest) {
    t.temperature_c = static_cast<int32_t>(std::lround(static_cast<double>(*milli) / 1000.0));
    return;
  }
  notes.push_back(!bad.empty() ? bad : "no " + (thermal / "thermal_zone*" / "temp").string());
}

} // namespace

// Power stays unread: RAPL (powercap/intel-rapl:0/energy_uj) counts energy, and a power figure
// would need two samples over an interval this call does not own, besides root on kernels since
// the 2020 RAPL side-channel fix.
sdk::Telemetry read_host_telemetry(const std::string& sys_root, const std::string& kernel_release)
{
  sdk::Telemetry t;
  std::vector<std::string> notes;
  read_cpufreq(sys_root, t, notes);
  read_temperature(sys_root, t, notes);
  if (!kernel_release.empty()) {
    t.driver_version = kernel_release;
  } else {
    notes.push_back("no kernel release (uname failed)");
  }
  t.source = "Linux sysfs";
  for (const auto& note : notes) {
    t.reason += (t.reason.empty() ? "" : "; ") + note;
  }
  return t;
}

sdk::Telemetry read_telemetry(const zl_host_api* /*host*/, const sdk::Device& /*device*/)
{
  struct utsname names
  {
  };
  const std::string release = ::uname(&names) == 0 ? std::string(names.release) : std::string();
  return read_host_telemetry("/sys", release);
}

} // namespace zl::backend_cpu
