// NVIDIA telemetry: the NVML reason mapping, the nvidia-smi telemetry parser on constructed
// outputs, the nvidia-smi fallback on a fake host, and what a reading publishes into the core's
// zl_telemetry. The NVML reading itself: test_backend_cuda_telemetry_nvml.cpp.
#include "cuda_telemetry.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

#include <cstdio>

using namespace zl::backend_cuda;
using zl::test::FakeVendorHost;
using zl::test::read_fixture;

namespace {

const char* const k_uuid = "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c";
const std::string k_fields = "clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,clocks.applications.graphics,"
                             "clocks.default_applications.graphics,temperature.gpu,power.draw,power.limit,"
                             "clocks_event_reasons.active,ecc.mode.current,mig.mode.current,driver_version,"
                             "vbios_version";
const std::string k_smi = "nvidia-smi --query-gpu=" + k_fields + " --format=csv,noheader,nounits -i " + k_uuid;

Device gpu()
{
  return {2, k_uuid, "NVIDIA H100 80GB HBM3", 0, k_uuid};
}

std::string old_smi()
{
  std::string cmd = k_smi;
  const std::string from = "clocks_event_reasons";
  return cmd.replace(cmd.find(from), from.size(), "clocks_throttle_reasons");
}

NvmlReading nvml_absent(const Device&)
{
  NvmlReading r;
  r.detail = "libnvidia-ml.so.1: cannot open shared object file: No such file or directory";
  return r;
}

NvmlReading nvml_failing(const Device&)
{
  NvmlReading r;
  r.state = zl::sdk::LibraryResult::State::failed;
  r.detail = "nvmlInit_v2 returned 9";
  return r;
}

NvmlReading nvml_answering(const Device&)
{
  NvmlReading r;
  r.state = zl::sdk::LibraryResult::State::ok;
  r.telemetry.source = "NVML (libnvidia-ml.so.1)";
  r.telemetry.sm_clock_mhz = 1980;
  return r;
}

// What sdk::guarded_telemetry calls on the descriptor's behalf, with NVML absent.
Telemetry read_without_nvml(const zl_host_api* host, const Device& device)
{
  return read_telemetry_with(host, device, &nvml_absent);
}

zl_telemetry publish(const Telemetry& t)
{
  zl_telemetry out{};
  out.struct_size = sizeof(out);
  REQUIRE(zl::sdk::publish_telemetry(&out, t) == ZL_OK);
  return out;
}

constexpr uint32_t k_all_fields = (ZL_TEL_FIRMWARE << 1) - 1;

} // namespace

TEST_CASE("zl::backend_cuda telemetry: map_throttle")
{
  CHECK(map_throttle(0).bits == 0);
  CHECK(map_throttle(0).text.empty());
  CHECK(map_throttle(0x4).bits == ZL_THROTTLE_POWER);
  CHECK(map_throttle(0x4).text == "SwPowerCap");
  CHECK(map_throttle(0x1).bits == ZL_THROTTLE_IDLE);
  CHECK(map_throttle(0x2).bits == ZL_THROTTLE_APP_CLOCKS);
  CHECK(map_throttle(0x10).bits == ZL_THROTTLE_SYNC_BOOST);
  CHECK(map_throttle(0x20).bits == ZL_THROTTLE_THERMAL);
  CHECK(map_throttle(0x40).bits == ZL_THROTTLE_THERMAL);
  CHECK(map_throttle(0x8).bits == ZL_THROTTLE_HW_SLOWDOWN);
  CHECK(map_throttle(0x80).bits == ZL_THROTTLE_HW_SLOWDOWN);
  CHECK(map_throttle(0x100).bits == ZL_THROTTLE_OTHER);
  CHECK(map_throttle(0x48).text == "HwSlowdown,HwThermalSlowdown");
  const Throttle all = map_throttle(0x1ff);
  CHECK(all.bits == (ZL_THROTTLE_IDLE | ZL_THROTTLE_APP_CLOCKS | ZL_THROTTLE_POWER | ZL_THROTTLE_THERMAL |
                     ZL_THROTTLE_HW_SLOWDOWN | ZL_THROTTLE_SYNC_BOOST | ZL_THROTTLE_OTHER));
  CHECK(all.text == "GpuIdle,ApplicationsClocksSetting,SwPowerCap,HwSlowdown,SyncBoost,SwThermalSlowdown,"
                    "HwThermalSlowdown,HwPowerBrakeSlowdown,DisplayClockSetting");
  // nvmlClocksThrottleReasonUnknown of old nvml.h, and any bit NVML adds later: named by value.
  const Throttle unknown = map_throttle(0x8000000000000004ULL);
  CHECK(unknown.bits == (ZL_THROTTLE_POWER | ZL_THROTTLE_OTHER));
  CHECK(unknown.text == "SwPowerCap,0x8000000000000000");
}

TEST_CASE("zl::backend_cuda telemetry: nvidia_smi_telemetry_argv")
{
  const auto join = [](const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
      out += (out.empty() ? "" : " ") + a;
    }
    return out;
  };
  CHECK(join(nvidia_smi_telemetry_argv(gpu())) == k_smi);
  CHECK(join(nvidia_smi_telemetry_argv(gpu(), true)) == old_smi());
  Device no_uuid = gpu();
  no_uuid.uuid.clear();
  CHECK(nvidia_smi_telemetry_argv(no_uuid).back() == "2");
}

TEST_CASE("zl::backend_cuda telemetry: parse_nvidia_smi_telemetry")
{
  SUBCASE("an H100 at work: every field read")
  {
    const auto r = parse_nvidia_smi_telemetry(read_fixture("smi/cuda/nvidia-smi-telemetry-h100.txt"));
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.sm_clock_mhz == 1755u);
    CHECK(t.sm_clock_max_mhz == 1980u);
    CHECK(t.mem_clock_mhz == 2619u);
    CHECK(t.mem_clock_max_mhz == 2619u);
    CHECK(t.locked_mhz == 0u); // applications clock at its default
    CHECK(t.temperature_c == 41);
    CHECK(t.power_w == doctest::Approx(112.34));
    CHECK(t.power_limit_w == doctest::Approx(700.0));
    CHECK(t.throttle == uint64_t{0});
    CHECK(t.throttle_text.empty());
    CHECK(t.ecc == true);
    CHECK(t.mig == false);
    CHECK(t.driver_version == "550.54.15");
    CHECK(t.firmware_version == "96.00.99.00.01");
    CHECK(t.reason.empty());
  }
  SUBCASE("throttled, with a user's applications clock")
  {
    const auto r = parse_nvidia_smi_telemetry(read_fixture("smi/cuda/nvidia-smi-telemetry-throttled.txt"));
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.sm_clock_mhz == 1410u);
    CHECK(t.locked_mhz == 1410u);
    CHECK(t.temperature_c == 87);
    CHECK(t.throttle == (ZL_THROTTLE_APP_CLOCKS | ZL_THROTTLE_POWER | ZL_THROTTLE_THERMAL));
    CHECK(t.throttle_text == "ApplicationsClocksSetting,SwPowerCap,SwThermalSlowdown,HwThermalSlowdown");
    CHECK(t.mig == true);
  }
  SUBCASE("[N/A], [Not Supported] and N/A are fields left unread")
  {
    const auto r = parse_nvidia_smi_telemetry(read_fixture("smi/cuda/nvidia-smi-telemetry-na.txt"));
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.sm_clock_mhz == 345u);
    CHECK(t.mem_clock_max_mhz == 10501u);
    CHECK_FALSE(t.locked_mhz.has_value());
    CHECK_FALSE(t.power_w.has_value());
    CHECK_FALSE(t.power_limit_w.has_value());
    CHECK_FALSE(t.ecc.has_value());
    CHECK_FALSE(t.mig.has_value());
    CHECK(t.throttle == ZL_THROTTLE_IDLE);
    CHECK(t.throttle_text == "GpuIdle");
    CHECK(t.firmware_version == "95.02.5D.00.01");
    CHECK(t.reason == "nvidia-smi could not read clocks.applications.graphics [N/A], "
                      "clocks.default_applications.graphics [N/A], power.draw [N/A], power.limit [Not Supported], "
                      "ecc.mode.current N/A, mig.mode.current [N/A]");
  }
  SUBCASE("garbage: the driver's complaint instead of values")
  {
    const auto r = parse_nvidia_smi_telemetry(read_fixture("smi/cuda/nvidia-smi-telemetry-garbage.txt"));
    CHECK(r.error == "'NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
                     "that the latest NVIDIA driver is installed and running.' has 1 fields, expected 14 (the "
                     "fields of the query)");
    CHECK_FALSE(r.telemetry.sm_clock_mhz.has_value());
  }
  SUBCASE("truncated: output ends mid-line")
  {
    const auto r = parse_nvidia_smi_telemetry(read_fixture("smi/cuda/nvidia-smi-telemetry-truncated.txt"));
    CHECK(r.error == "output ends mid-line at '1755, 1980, 2619, 2619, 1980, 19'");
  }
  SUBCASE("a value not of its field's form is an error, and nothing is kept")
  {
    std::string line = read_fixture("smi/cuda/nvidia-smi-telemetry-h100.txt");
    const auto r = parse_nvidia_smi_telemetry(line.replace(line.find("0x0000000000000000"), 18, "Active"));
    CHECK(zl::sdk::starts_with(r.error, "'1755, 1980,"));
    CHECK(r.error.find(": clocks_event_reasons.active 'Active' not understood") != std::string::npos);
    CHECK_FALSE(r.telemetry.sm_clock_mhz.has_value());
    CHECK(parse_nvidia_smi_telemetry("-5, 1980, 2619, 2619, 1980, 1980, 41, 1, 2, 0x0, Enabled, Disabled, d, v\n")
              .error.find("clocks.sm '-5' not understood") != std::string::npos);
    CHECK(parse_nvidia_smi_telemetry("1, 1, 1, 1, 1, 1, 41, -1.5, 2, 0x0, Enabled, Disabled, d, v\n")
              .error.find("power.draw '-1.5' not understood") != std::string::npos);
    CHECK(parse_nvidia_smi_telemetry("1, 1, 1, 1, 1, 1, 41, 1, 2, 0x0, On, Disabled, d, v\n")
              .error.find("ecc.mode.current 'On' not understood") != std::string::npos);
  }
  SUBCASE("one line, one GPU")
  {
    CHECK(parse_nvidia_smi_telemetry("").error == "no output");
    CHECK(parse_nvidia_smi_telemetry("\n\n").error == "no output");
    const std::string one = read_fixture("smi/cuda/nvidia-smi-telemetry-h100.txt");
    CHECK(zl::sdk::starts_with(parse_nvidia_smi_telemetry(one + one).error, "expected one line (one GPU), got 2"));
  }
}

TEST_CASE("zl::backend_cuda telemetry: read_telemetry_with, the nvidia-smi fallback")
{
  FakeVendorHost host;
  SUBCASE("NVML answers: nvidia-smi is not run")
  {
    const Telemetry t = read_telemetry_with(host.api(), gpu(), &nvml_answering);
    CHECK(t.source == "NVML (libnvidia-ml.so.1)");
    CHECK(t.sm_clock_mhz == 1980u);
    CHECK(host.calls().empty());
  }
  SUBCASE("NVML absent: nvidia-smi answers for the GPU's UUID")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-h100.txt"));
    const Telemetry t = read_telemetry_with(host.api(), gpu(), &nvml_absent);
    CHECK(host.calls() == std::vector<std::string>{k_smi});
    CHECK(t.source == "nvidia-smi");
    CHECK(t.reason.empty());
    CHECK(t.sm_clock_mhz == 1755u);
  }
  SUBCASE("NVML failing: said in source and reason")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-na.txt"));
    const Telemetry t = read_telemetry_with(host.api(), gpu(), &nvml_failing);
    CHECK(t.source == "nvidia-smi (NVML failed)");
    CHECK(zl::sdk::starts_with(t.reason, "NVML failed (nvmlInit_v2 returned 9); nvidia-smi could not read "
                                         "clocks.applications.graphics [N/A]"));
  }
  SUBCASE("an older driver refuses clocks_event_reasons: asked again by the old name")
  {
    host.on(k_smi, "Field \"clocks_event_reasons.active\" is not a valid field to query.\n", 2);
    host.on(old_smi(), read_fixture("smi/cuda/nvidia-smi-telemetry-throttled.txt"));
    const Telemetry t = read_telemetry_with(host.api(), gpu(), &nvml_absent);
    CHECK(host.calls() == std::vector<std::string>{k_smi, old_smi()});
    CHECK(t.throttle == (ZL_THROTTLE_APP_CLOCKS | ZL_THROTTLE_POWER | ZL_THROTTLE_THERMAL));
    CHECK(t.reason.empty());
  }
  SUBCASE("no NVML, no nvidia-smi: nothing read, both said")
  {
    const Telemetry t = read_telemetry_with(host.api(), gpu(), &nvml_absent);
    CHECK(t.reason == "nvidia-smi not found on PATH and libnvidia-ml.so.1 not loadable (libnvidia-ml.so.1: cannot "
                      "open shared object file: No such file or directory)");
    CHECK(publish(t).present == 0u);
  }
  SUBCASE("nvidia-smi failing or garbled: nothing read, the reason quotes it")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-garbage.txt"), 9);
    const Telemetry failed = read_telemetry_with(host.api(), gpu(), &nvml_failing);
    CHECK(zl::sdk::starts_with(failed.reason, "nvidia-smi exited with code 9: 'NVIDIA-SMI has failed"));
    CHECK(failed.reason.find("; NVML failed (nvmlInit_v2 returned 9)") != std::string::npos);
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-truncated.txt"));
    const Telemetry garbled = read_telemetry_with(host.api(), gpu(), &nvml_absent);
    CHECK(zl::sdk::starts_with(garbled.reason, "nvidia-smi --query-gpu output not understood: output ends mid-line"));
    CHECK(publish(garbled).present == 0u);
  }
}

TEST_CASE("zl::backend_cuda telemetry: published into zl_telemetry")
{
  FakeVendorHost host;
  zl_device_info info{};
  info.index = 2;
  std::snprintf(info.uuid, sizeof(info.uuid), "%s", k_uuid);
  zl_telemetry out{};
  out.struct_size = sizeof(out);
  SUBCASE("every field of the H100 sample")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-h100.txt"));
    REQUIRE(zl::sdk::guarded_telemetry<read_without_nvml>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.present == k_all_fields);
    CHECK(out.sm_clock_mhz == 1755u);
    CHECK(out.sm_clock_max_mhz == 1980u);
    CHECK(out.mem_clock_mhz == 2619u);
    CHECK(out.mem_clock_max_mhz == 2619u);
    CHECK(out.clocks_locked == 0u);
    CHECK(out.sm_clock_locked_mhz == 0u);
    CHECK(out.temperature_c == 41);
    CHECK(out.power_mw == 112340u);
    CHECK(out.power_limit_mw == 700000u);
    CHECK(out.throttle == uint64_t{0});
    CHECK(std::string(out.throttle_text).empty());
    CHECK(out.ecc == 1u);
    CHECK(out.mig == 0u);
    CHECK(std::string(out.driver_version) == "550.54.15");
    CHECK(std::string(out.firmware_version) == "96.00.99.00.01");
    CHECK(std::string(out.source) == "nvidia-smi");
    CHECK(std::string(out.reason).empty());
  }
  SUBCASE("throttled and locked")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-throttled.txt"));
    REQUIRE(zl::sdk::guarded_telemetry<read_without_nvml>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.clocks_locked == 1u);
    CHECK(out.sm_clock_locked_mhz == 1410u);
    CHECK(out.power_mw == 699870u);
    CHECK(out.throttle == (ZL_THROTTLE_APP_CLOCKS | ZL_THROTTLE_POWER | ZL_THROTTLE_THERMAL));
    CHECK(std::string(out.throttle_text) == "ApplicationsClocksSetting,SwPowerCap,SwThermalSlowdown,HwThermalSlowdown");
    CHECK(out.mig == 1u);
  }
  SUBCASE("unread fields have no present bit")
  {
    host.on(k_smi, read_fixture("smi/cuda/nvidia-smi-telemetry-na.txt"));
    REQUIRE(zl::sdk::guarded_telemetry<read_without_nvml>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.present ==
          (k_all_fields & ~(ZL_TEL_LOCKED | ZL_TEL_POWER | ZL_TEL_POWER_LIMIT | ZL_TEL_ECC | ZL_TEL_MIG)));
    CHECK(out.power_mw == 0u);
    CHECK(out.throttle == ZL_THROTTLE_IDLE);
    CHECK(std::string(out.reason).find("power.draw [N/A]") != std::string::npos);
  }
}
