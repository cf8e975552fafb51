// NVIDIA telemetry through NVML (cuda_telemetry_nvml.cpp): read_nvml_device on faked NVML calls,
// field by field: what each call answers, what a failing or missing call leaves unread, when the
// session must be rebuilt, and the handle found by UUID else by index.
#include "cuda_telemetry.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

using namespace zl::backend_cuda;

namespace {

const char* const k_uuid = "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c";

Device gpu()
{
  return {2, k_uuid, "NVIDIA H100 80GB HBM3", 0, k_uuid};
}

// A fake NVML: one GPU at index 2 with k_uuid, handle k_handle; rc of each call settable.
void* const k_handle = reinterpret_cast<void*>(0x1234);
int g_power_rc = 0;
int g_uuid_rc = 0;
unsigned g_app_clock = 1980;

int fake_by_uuid(const char* uuid, void** dev)
{
  *dev = k_handle;
  return g_uuid_rc != 0 ? g_uuid_rc : std::strcmp(uuid, k_uuid) == 0 ? 0 : 6; // 6: NVML_ERROR_NOT_FOUND
}
int fake_by_index(unsigned index, void** dev)
{
  *dev = k_handle;
  return index == 2 ? 0 : 2; // 2: NVML_ERROR_INVALID_ARGUMENT
}
// Every device call checks the handle, so a wrong one shows as a failed field.
int fake_clock(void* dev, int type, unsigned* mhz)
{
  *mhz = type == 1 ? 1410 : type == 2 ? 2619 : 0;
  return dev == k_handle && type != 0 ? 0 : 2;
}
int fake_max_clock(void* dev, int type, unsigned* mhz)
{
  *mhz = type == 1 ? 1980 : 2619;
  return dev == k_handle ? 0 : 2;
}
int fake_app_clock(void* dev, int type, unsigned* mhz)
{
  *mhz = g_app_clock;
  return dev == k_handle && type == 0 ? 0 : 2;
}
int fake_default_app_clock(void* dev, int type, unsigned* mhz)
{
  *mhz = 1980;
  return dev == k_handle && type == 0 ? 0 : 2;
}
int fake_temperature(void* dev, int sensor, unsigned* c)
{
  *c = 63;
  return dev == k_handle && sensor == 0 ? 0 : 2;
}
int fake_power(void* dev, unsigned* mw)
{
  *mw = 345678;
  return dev == k_handle ? g_power_rc : 2;
}
int fake_power_limit(void* dev, unsigned* mw)
{
  *mw = 700000;
  return dev == k_handle ? 0 : 2;
}
int fake_reasons(void* dev, unsigned long long* reasons)
{
  *reasons = 0x6; // ApplicationsClocksSetting, SwPowerCap
  return dev == k_handle ? 0 : 2;
}
int fake_ecc(void* dev, int* current, int* pending)
{
  *current = 1;
  *pending = 0;
  return dev == k_handle ? 0 : 2;
}
int fake_mig(void* dev, unsigned* current, unsigned* pending)
{
  *current = 0;
  *pending = 1;
  return dev == k_handle ? 0 : 2;
}
int fake_driver(char* version, unsigned length)
{
  std::snprintf(version, length, "%s", "550.54.15");
  return 0;
}
int fake_vbios(void* dev, char* version, unsigned length)
{
  std::snprintf(version, length, "%s", "96.00.99.00.01");
  return dev == k_handle ? 0 : 2;
}

NvmlCalls fake_nvml()
{
  g_power_rc = 0;
  g_uuid_rc = 0;
  g_app_clock = 1980;
  NvmlCalls c;
  c.by_uuid = &fake_by_uuid;
  c.by_index = &fake_by_index;
  c.clock = &fake_clock;
  c.max_clock = &fake_max_clock;
  c.app_clock = &fake_app_clock;
  c.default_app_clock = &fake_default_app_clock;
  c.temperature = &fake_temperature;
  c.power = &fake_power;
  c.power_limit = &fake_power_limit;
  c.reasons = &fake_reasons;
  c.ecc = &fake_ecc;
  c.mig = &fake_mig;
  c.driver = &fake_driver;
  c.vbios = &fake_vbios;
  return c;
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

TEST_CASE("zl::backend_cuda telemetry: read_nvml_device on a fake NVML")
{
  SUBCASE("every call answers")
  {
    const NvmlReading r = read_nvml_device(fake_nvml(), gpu());
    REQUIRE(r.state == zl::sdk::LibraryResult::State::ok);
    const Telemetry& t = r.telemetry;
    CHECK(t.source == "NVML (libnvidia-ml.so.1)");
    CHECK(t.sm_clock_mhz == 1410u);
    CHECK(t.sm_clock_max_mhz == 1980u);
    CHECK(t.mem_clock_mhz == 2619u);
    CHECK(t.mem_clock_max_mhz == 2619u);
    CHECK(t.locked_mhz == 0u);
    CHECK(t.temperature_c == 63);
    CHECK(t.power_w == doctest::Approx(345.678));
    CHECK(t.power_limit_w == doctest::Approx(700.0));
    CHECK(t.throttle == (ZL_THROTTLE_APP_CLOCKS | ZL_THROTTLE_POWER));
    CHECK(t.throttle_text == "ApplicationsClocksSetting,SwPowerCap");
    CHECK(t.ecc == true);
    CHECK(t.mig == false); // the pending mode is not the current one
    CHECK(t.driver_version == "550.54.15");
    CHECK(t.firmware_version == "96.00.99.00.01");
    CHECK(t.reason.empty());
    CHECK(r.session_rc == 0);
    CHECK(publish(t).present == k_all_fields);
    CHECK(publish(t).power_mw == 345678u);
  }
  SUBCASE("a user's applications clock is a lock")
  {
    NvmlCalls c = fake_nvml();
    g_app_clock = 1410;
    CHECK(read_nvml_device(c, gpu()).telemetry.locked_mhz == 1410u);
  }
  SUBCASE("a call that fails, or a function the library lacks, leaves only its field unread")
  {
    NvmlCalls c = fake_nvml();
    g_power_rc = k_nvml_not_supported;
    c.mig = nullptr;
    const NvmlReading r = read_nvml_device(c, gpu());
    REQUIRE(r.state == zl::sdk::LibraryResult::State::ok);
    CHECK_FALSE(r.telemetry.power_w.has_value());
    CHECK_FALSE(r.telemetry.mig.has_value());
    CHECK(r.telemetry.power_limit_w.has_value());
    CHECK(r.telemetry.reason == "nvmlDeviceGetPowerUsage returned 3; libnvidia-ml.so.1 has no nvmlDeviceGetMigMode");
    CHECK(r.session_rc == 0);
    CHECK(publish(r.telemetry).present == (k_all_fields & ~ZL_TEL_POWER & ~ZL_TEL_MIG));
  }
  SUBCASE("a lost GPU marks the session for a rebuild")
  {
    NvmlCalls c = fake_nvml();
    g_power_rc = k_nvml_gpu_is_lost;
    CHECK(read_nvml_device(c, gpu()).session_rc == k_nvml_gpu_is_lost);
    g_power_rc = 0;
    g_uuid_rc = k_nvml_uninitialized;
    const NvmlReading r = read_nvml_device(c, gpu());
    CHECK(r.state == zl::sdk::LibraryResult::State::failed);
    CHECK(r.session_rc == k_nvml_uninitialized);
    CHECK(r.detail == "nvmlDeviceGetHandleByUUID returned 1");
  }
  SUBCASE("a UUID NVML does not know falls back to the index, and says so")
  {
    Device d = gpu();
    d.uuid = "GPU-ffffffff-0000-0000-0000-000000000000";
    const NvmlReading r = read_nvml_device(fake_nvml(), d);
    REQUIRE(r.state == zl::sdk::LibraryResult::State::ok);
    CHECK(r.telemetry.sm_clock_mhz == 1410u);
    CHECK(r.telemetry.reason == "nvmlDeviceGetHandleByUUID returned 6; read device index 2 instead");
    d.index = 5;
    const NvmlReading none = read_nvml_device(fake_nvml(), d);
    CHECK(none.state == zl::sdk::LibraryResult::State::failed);
    CHECK(none.detail == "nvmlDeviceGetHandleByUUID returned 6; nvmlDeviceGetHandleByIndex_v2 returned 2");
  }
}
