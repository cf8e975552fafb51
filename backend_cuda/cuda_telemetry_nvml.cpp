// NVML telemetry through dlopen: one reading of a GPU, field by field, on an NVML session the
// process keeps. Prototypes: NVIDIA/go-nvml gen/nvml/nvml.h (docs/vendor-facts.md §1.5).
#include "cuda_telemetry.hpp"

#include <zl/backend_sdk.hpp>

#include <memory>
#include <mutex>

namespace zl::backend_cuda {

namespace {

constexpr const char* k_library = "libnvidia-ml.so.1";
constexpr const char* k_source = "NVML (libnvidia-ml.so.1)";
constexpr int k_clock_graphics = 0;      // NVML_CLOCK_GRAPHICS
constexpr int k_clock_sm = 1;            // NVML_CLOCK_SM
constexpr int k_clock_mem = 2;           // NVML_CLOCK_MEM
constexpr int k_temperature_gpu = 0;     // NVML_TEMPERATURE_GPU
constexpr int k_feature_enabled = 1;     // NVML_FEATURE_ENABLED (nvmlEnableState_t)
constexpr unsigned k_mig_enable = 1;     // NVML_DEVICE_MIG_ENABLE
constexpr unsigned k_driver_buffer = 80; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned k_vbios_buffer = 32;  // NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE

void add_note(std::string& reason, const std::string& note)
{
  reason += (reason.empty() ? "" : "; ") + note;
}

// One NVML call: true when the function exists and returned NVML_SUCCESS. Otherwise its field
// stays unread and the reason says why; 1 (uninitialized) and 15 (GPU lost) also mark the
// session as gone, so that the caller rebuilds it.
template <typename Fn, typename Invoke>
bool call(NvmlReading& r, const char* name, Fn fn, Invoke invoke)
{
  if (fn == nullptr) {
    add_note(r.telemetry.reason, std::string(k_library) + " has no " + name);
    return false;
  }
  const int rc = invoke(fn);
  if (rc == 0) {
    return true;
  }
  add_note(r.telemetry.reason, sdk::call_failed(name, rc));
  if ((rc == k_nvml_uninitialized || rc == k_nvml_gpu_is_lost) && r.session_rc == 0) {
    r.session_rc = rc;
  }
  return false;
}

// The handle: by UUID (NVML's indices need not match the caller's), else by index with a note.
// False with state failed and detail when neither finds it.
bool find_handle(const NvmlCalls& c, const Device& device, NvmlReading& r, void*& dev)
{
  std::string note;
  if (c.by_uuid != nullptr && !device.uuid.empty()) {
    const int rc = c.by_uuid(device.uuid.c_str(), &dev);
    if (rc == 0) {
      return true;
    }
    note = sdk::call_failed("nvmlDeviceGetHandleByUUID", rc);
    if (rc == k_nvml_uninitialized || rc == k_nvml_gpu_is_lost) {
      r.session_rc = rc;
      r.detail = note;
      return false;
    }
  } else if (!device.uuid.empty()) {
    note = std::string(k_library) + " has no nvmlDeviceGetHandleByUUID";
  }
  const int rc = c.by_index != nullptr ? c.by_index(device.index, &dev) : -1;
  if (rc != 0) {
    r.detail =
        sdk::join_notes({note, c.by_index == nullptr ? std::string(k_library) + " has no nvmlDeviceGetHandleByIndex_v2"
                                                     : sdk::call_failed("nvmlDeviceGetHandleByIndex_v2", rc)});
    r.session_rc = rc == k_nvml_uninitialized || rc == k_nvml_gpu_is_lost ? rc : r.session_rc;
    return false;
  }
  if (!note.empty()) {
    add_note(r.telemetry.reason, note + "; read device index " + std::to_string(device.index) + " instead");
  }
  return true;
}

void read_clocks(const NvmlCalls& c, void* dev, NvmlReading& r)
{
  Telemetry& t = r.telemetry;
  const auto clock = [&](const char* name, decltype(c.clock) fn, int type, std::optional<uint32_t>& field) {
    unsigned mhz = 0;
    if (call(r, name, fn, [&](auto f) { return f(dev, type, &mhz); })) {
      field = mhz;
    }
  };
  clock("nvmlDeviceGetClockInfo(SM)", c.clock, k_clock_sm, t.sm_clock_mhz);
  clock("nvmlDeviceGetMaxClockInfo(SM)", c.max_clock, k_clock_sm, t.sm_clock_max_mhz);
  clock("nvmlDeviceGetClockInfo(MEM)", c.clock, k_clock_mem, t.mem_clock_mhz);
  clock("nvmlDeviceGetMaxClockInfo(MEM)", c.max_clock, k_clock_mem, t.mem_clock_max_mhz);
  // Locked: an applications clock (graphics, as nvidia-smi -ac sets it) other than its default
  // was set by a user. Locks made with nvidia-smi -lgc have no NVML getter; they show only as
  // the ApplicationsClocksSetting reason, in throttle.
  unsigned app = 0;
  unsigned app_default = 0;
  if (call(r, "nvmlDeviceGetApplicationsClock", c.app_clock, [&](auto f) { return f(dev, k_clock_graphics, &app); }) &&
      call(r, "nvmlDeviceGetDefaultApplicationsClock", c.default_app_clock,
           [&](auto f) { return f(dev, k_clock_graphics, &app_default); })) {
    t.locked_mhz = app != app_default ? app : 0;
  }
}

void read_power_and_state(const NvmlCalls& c, void* dev, NvmlReading& r)
{
  Telemetry& t = r.telemetry;
  unsigned value = 0;
  if (call(r, "nvmlDeviceGetTemperature", c.temperature, [&](auto f) { return f(dev, k_temperature_gpu, &value); })) {
    t.temperature_c = static_cast<int32_t>(value);
  }
  if (call(r, "nvmlDeviceGetPowerUsage", c.power, [&](auto f) { return f(dev, &value); })) {
    t.power_w = value / 1000.0; // NVML says milliwatts; Telemetry keeps watts
  }
  if (call(r, "nvmlDeviceGetEnforcedPowerLimit", c.power_limit, [&](auto f) { return f(dev, &value); })) {
    t.power_limit_w = value / 1000.0;
  }
  unsigned long long reasons = 0;
  if (call(r, c.reasons_name, c.reasons, [&](auto f) { return f(dev, &reasons); })) {
    Throttle th = map_throttle(reasons);
    t.throttle = th.bits;
    t.throttle_text = std::move(th.text);
  }
  int ecc = 0;
  int ecc_pending = 0;
  if (call(r, "nvmlDeviceGetEccMode", c.ecc, [&](auto f) { return f(dev, &ecc, &ecc_pending); })) {
    t.ecc = ecc == k_feature_enabled;
  }
  unsigned mig = 0;
  unsigned mig_pending = 0;
  if (call(r, "nvmlDeviceGetMigMode", c.mig, [&](auto f) { return f(dev, &mig, &mig_pending); })) {
    t.mig = mig == k_mig_enable;
  }
}

void read_versions(const NvmlCalls& c, void* dev, NvmlReading& r)
{
  char driver[k_driver_buffer] = {};
  if (call(r, "nvmlSystemGetDriverVersion", c.driver, [&](auto f) { return f(driver, k_driver_buffer); })) {
    r.telemetry.driver_version = sdk::text_field(driver);
  }
  char vbios[k_vbios_buffer] = {};
  if (call(r, "nvmlDeviceGetVbiosVersion", c.vbios, [&](auto f) { return f(dev, vbios, k_vbios_buffer); })) {
    r.telemetry.firmware_version = sdk::text_field(vbios);
  }
}

// The process's NVML session: the library, its functions and one nvmlInit_v2 reference.
struct Session
{
  std::unique_ptr<sdk::Library> lib;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  NvmlCalls calls;
  bool initialized = false;
};

// Opens, binds and initialises what is missing; false with the reading's state and detail when
// it cannot. Nothing that failed is kept: the next reading tries again.
bool open_session(Session& s, NvmlReading& r)
{
  if (s.initialized) {
    return true;
  }
  if (!s.lib) {
    auto lib = std::make_unique<sdk::Library>(std::initializer_list<const char*>{k_library});
    lib->bind("nvmlInit_v2", s.init);
    lib->bind("nvmlShutdown", s.shutdown);
    lib->bind("nvmlDeviceGetHandleByIndex_v2", s.calls.by_index);
    sdk::LibraryResult result;
    if (!lib->usable(result) || s.init == nullptr || s.shutdown == nullptr) {
      r.state = result.state == sdk::LibraryResult::State::ok ? sdk::LibraryResult::State::failed : result.state;
      r.detail = result.detail;
      s = Session{};
      return false;
    }
    // Every other function is optional: a library without one leaves its field unread.
    NvmlCalls& c = s.calls;
    lib->bind("nvmlDeviceGetHandleByUUID", c.by_uuid);
    lib->bind("nvmlDeviceGetClockInfo", c.clock);
    lib->bind("nvmlDeviceGetMaxClockInfo", c.max_clock);
    lib->bind("nvmlDeviceGetApplicationsClock", c.app_clock);
    lib->bind("nvmlDeviceGetDefaultApplicationsClock", c.default_app_clock);
    lib->bind("nvmlDeviceGetTemperature", c.temperature);
    lib->bind("nvmlDeviceGetPowerUsage", c.power);
    lib->bind("nvmlDeviceGetEnforcedPowerLimit", c.power_limit);
    const std::string reasons = lib->bind_first(
        {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}, c.reasons);
    c.reasons_name = reasons == "nvmlDeviceGetCurrentClocksThrottleReasons"
                         ? "nvmlDeviceGetCurrentClocksThrottleReasons"
                         : "nvmlDeviceGetCurrentClocksEventReasons";
    lib->bind("nvmlDeviceGetEccMode", c.ecc);
    lib->bind("nvmlDeviceGetMigMode", c.mig);
    lib->bind("nvmlSystemGetDriverVersion", c.driver);
    lib->bind("nvmlDeviceGetVbiosVersion", c.vbios);
    s.lib = std::move(lib);
  }
  if (const int rc = s.init(); rc != 0) {
    r.state = sdk::LibraryResult::State::failed;
    r.detail = sdk::call_failed("nvmlInit_v2", rc);
    s = Session{};
    return false;
  }
  s.initialized = true;
  return true;
}

// Gives the session's reference back. After UNINITIALIZED it is already gone (someone in the
// process shut NVML down), and a shutdown would take another holder's reference.
void drop_session(Session& s, int session_rc)
{
  if (s.initialized && session_rc != k_nvml_uninitialized) {
    s.shutdown();
  }
  s.initialized = false;
}

} // namespace

NvmlReading read_nvml_device(const NvmlCalls& calls, const Device& device)
{
  NvmlReading r;
  r.state = sdk::LibraryResult::State::failed;
  void* dev = nullptr;
  if (!find_handle(calls, device, r, dev)) {
    return r;
  }
  r.state = sdk::LibraryResult::State::ok;
  r.telemetry.source = k_source;
  read_clocks(calls, dev, r);
  read_power_and_state(calls, dev, r);
  read_versions(calls, dev, r);
  return r;
}

// Why the session outlives a call: nvmlInit_v2 can take a second or more (without persistence
// mode the driver sets each GPU up again for every first client), and zl reads before and after
// every op and every half second in between. The ABI allows a kept library as a cache rebuilt on
// failure: a call that says NVML is uninitialised or the GPU is lost drops the session, which is
// set up once more for one retry. NVML counts nvmlInit_v2 references, so enumerate's own
// init/shutdown (cuda_nvml.cpp) leaves this one alone. The mutex guards the session against a
// caller that does not serialise its calls as zl does; the session is never destroyed, so no
// nvmlShutdown runs during exit, after NVML's own teardown may have begun.
NvmlReading query_nvml_telemetry(const Device& device)
{
  static std::mutex mutex;
  static Session* const session = new Session();
  const std::lock_guard<std::mutex> lock(mutex);
  for (int attempt = 0;; ++attempt) {
    NvmlReading r;
    if (!open_session(*session, r)) {
      return r;
    }
    r = read_nvml_device(session->calls, device);
    if (r.session_rc == 0) {
      return r;
    }
    drop_session(*session, r.session_rc);
    if (attempt == 1) {
      add_note(r.state == sdk::LibraryResult::State::ok ? r.telemetry.reason : r.detail,
               "NVML re-initialised once, to no avail");
      return r;
    }
  }
}

} // namespace zl::backend_cuda
