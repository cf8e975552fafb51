// Host telemetry on fake sysfs trees built in a temporary folder: a full one, one without cpufreq
// (a VM or container), one with garbage in its files, and none at all; then this host's own /sys.
#include "cpu_devices.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <sys/utsname.h>

#include <filesystem>
#include <fstream>

using namespace zl::backend_cpu;
using zl::test::TempDir;

namespace {

// Writes text to root/relative, creating the folders on the way.
void put(const TempDir& root, const std::string& relative, const std::string& text)
{
  const std::filesystem::path path = root / relative;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

void put_cpu(const TempDir& root, int cpu, const std::string& cur_khz, const std::string& max_khz)
{
  const std::string dir = "devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
  put(root, dir + "scaling_cur_freq", cur_khz);
  put(root, dir + "cpuinfo_max_freq", max_khz);
}

void put_zone(const TempDir& root, int zone, const std::string& type, const std::string& milli)
{
  const std::string dir = "class/thermal/thermal_zone" + std::to_string(zone) + "/";
  put(root, dir + "type", type + "\n");
  put(root, dir + "temp", milli);
}

zl_telemetry publish(const zl::sdk::Telemetry& t)
{
  zl_telemetry out{};
  out.struct_size = sizeof(out);
  REQUIRE(zl::sdk::publish_telemetry(&out, t) == ZL_OK);
  return out;
}

} // namespace

TEST_CASE("zl::backend_cpu telemetry: a full sysfs tree")
{
  const TempDir root;
  put_cpu(root, 0, "2000000\n", "3500000\n");
  put_cpu(root, 1, "3000000\n", "3700000\n"); // a hybrid part: cores differ in their maximum
  put_cpu(root, 2, "1200000\n", "3500000\n");
  // Entries beside cpuN that are not CPUs.
  put(root, "devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "9999999\n");
  put(root, "devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
  put_zone(root, 0, "acpitz", "27800\n");
  put_zone(root, 1, "x86_pkg_temp", "54500\n");
  put_zone(root, 2, "iwlwifi_1", "61000\n"); // hotter, but the package sensor wins

  const auto t = read_host_telemetry(root.path(), "6.1.0-28-amd64");
  CHECK(t.sm_clock_mhz == 2067u); // (2000000 + 3000000 + 1200000) / 3 kHz, the mean
  CHECK(t.sm_clock_max_mhz == 3700u);
  CHECK(t.temperature_c == 55);
  CHECK(t.driver_version == "6.1.0-28-amd64");
  CHECK(t.source == "Linux sysfs");
  CHECK(t.reason.empty());
  const zl_telemetry out = publish(t);
  CHECK(out.present == (ZL_TEL_SM_CLOCK | ZL_TEL_SM_CLOCK_MAX | ZL_TEL_TEMPERATURE | ZL_TEL_DRIVER));
  CHECK(out.sm_clock_mhz == 2067u);
  CHECK(out.temperature_c == 55);
  CHECK(std::string(out.driver_version) == "6.1.0-28-amd64");
  CHECK(out.power_mw == 0u);
}

TEST_CASE("zl::backend_cpu telemetry: no cpufreq, no package sensor")
{
  const TempDir root;
  put(root, "devices/system/cpu/cpu0/online", "1\n");
  put(root, "devices/system/cpu/cpu1/online", "1\n");
  put_zone(root, 0, "acpitz", "27800\n");
  put_zone(root, 3, "pch_skylake", "-3500\n"); // a cold one, below zero
  put_zone(root, 7, "INT3400 Thermal", "45000\n");

  const auto t = read_host_telemetry(root.path(), "6.8.0");
  CHECK_FALSE(t.sm_clock_mhz.has_value());
  CHECK_FALSE(t.sm_clock_max_mhz.has_value());
  CHECK(t.temperature_c == 45); // the hottest zone
  CHECK(t.reason == "no " + root.path() +
                        "/devices/system/cpu/cpu*/cpufreq (no cpufreq driver: usual in VMs and "
                        "containers)");
  CHECK(publish(t).present == (ZL_TEL_TEMPERATURE | ZL_TEL_DRIVER));
}

TEST_CASE("zl::backend_cpu telemetry: garbage in the files")
{
  const TempDir root;
  put_cpu(root, 0, "fast\n", "n/a\n");
  put_cpu(root, 1, "", "");
  put_zone(root, 0, "x86_pkg_temp", "hot\n");

  const auto t = read_host_telemetry(root.path(), "6.8.0");
  CHECK_FALSE(t.sm_clock_mhz.has_value());
  CHECK_FALSE(t.sm_clock_max_mhz.has_value());
  CHECK_FALSE(t.temperature_c.has_value());
  const std::string cpu = root.path() + "/devices/system/cpu/cpu0/cpufreq/";
  CHECK(t.reason == cpu + "scaling_cur_freq holds 'fast', not a frequency in kHz; " + cpu +
                        "cpuinfo_max_freq holds 'n/a', not a frequency in kHz; " + root.path() +
                        "/class/thermal/thermal_zone0/temp holds 'hot', not millidegrees");
  CHECK(publish(t).present == ZL_TEL_DRIVER);

  SUBCASE("one CPU unreadable: the mean of the others, and said")
  {
    put_cpu(root, 2, "1500000\n", "3000000\n");
    const auto partial = read_host_telemetry(root.path(), "6.8.0");
    CHECK(partial.sm_clock_mhz == 1500u);
    CHECK(partial.sm_clock_max_mhz == 3000u);
    CHECK(partial.reason.find("scaling_cur_freq holds 'fast', not a frequency in kHz (left out of the mean)") !=
          std::string::npos);
  }
}

TEST_CASE("zl::backend_cpu telemetry: an empty root and no kernel release")
{
  const TempDir root;
  const auto t = read_host_telemetry(root.path(), "");
  CHECK(t.reason == "no " + root.path() + "/devices/system/cpu/cpu*; no " + root.path() +
                        "/class/thermal/thermal_zone*/temp; no kernel release (uname failed)");
  CHECK(publish(t).present == 0u);
  CHECK(std::string(publish(t).source) == "Linux sysfs");
}

TEST_CASE("zl::backend_cpu telemetry: this host, through the descriptor's guard")
{
  struct utsname names
  {
  };
  REQUIRE(::uname(&names) == 0);
  zl_device_info info{};
  zl_telemetry out{};
  out.struct_size = sizeof(out);
  CHECK(zl::sdk::guarded_telemetry<read_telemetry>(nullptr, &info, &out) == ZL_OK);
  CHECK((out.present & ZL_TEL_DRIVER) != 0);
  CHECK(std::string(out.driver_version) == names.release);
  CHECK((out.present & (ZL_TEL_POWER | ZL_TEL_MEM_CLOCK | ZL_TEL_ECC | ZL_TEL_MIG)) == 0u);
}
