// A zl_host_api for vendor backend tests: run_program answers from canned outputs keyed by the
// whole command line, and reports "<tool> not found on PATH" for anything not canned; get_env
// reads a map. Nothing is executed.
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/telemetry.hpp>

#include <map>
#include <string>
#include <vector>

namespace zl::test {

class FakeVendorHost
{
public:
  struct Answer
  {
    zl_status status = ZL_OK;
    int exit_code = 0;
    std::string out;    // standard output
    std::string reason; // the host's sentence when status is not ZL_OK
  };

  FakeVendorHost()
  {
    m_api.struct_size = sizeof(zl_host_api);
    m_api.ctx = this;
    m_api.run_program = &run;
    m_api.get_env = &env;
  }
  FakeVendorHost(const FakeVendorHost&) = delete;
  FakeVendorHost& operator=(const FakeVendorHost&) = delete;

  // The command line, its words joined by single spaces, prints `out` and exits with `exit_code`.
  void on(const std::string& command, std::string out, int exit_code = 0)
  {
    m_answers[command] = Answer{ZL_OK, exit_code, std::move(out), {}};
  }

  // The command line fails in the host itself (a timeout: ZL_ERR_TOOL_FAILED).
  void refuse(const std::string& command, zl_status status, std::string reason)
  {
    m_answers[command] = Answer{status, 0, {}, std::move(reason)};
  }

  void set_env(const std::string& name, const std::string& value) { m_env[name] = value; }

  const zl_host_api* api() const { return &m_api; }

  // Every command line run so far, in order.
  const std::vector<std::string>& calls() const { return m_calls; }

private:
  static void write(char* reason, size_t size, const std::string& text)
  {
    if (reason == nullptr || size == 0) {
      return;
    }
    const size_t n = text.size() < size - 1 ? text.size() : size - 1;
    text.copy(reason, n);
    reason[n] = '\0';
  }

  static zl_status run(void* ctx, const char* const* argv, uint32_t /*timeout_ms*/,
                       void (*sink)(void*, const char*, size_t), void* sink_ctx, int* exit_code, char* reason,
                       size_t reason_size)
  {
    auto* self = static_cast<FakeVendorHost*>(ctx);
    std::string command;
    for (auto arg = argv; *arg != nullptr; ++arg) {
      command += (command.empty() ? "" : " ") + std::string(*arg);
    }
    self->m_calls.push_back(command);
    const auto found = self->m_answers.find(command);
    if (found == self->m_answers.end()) {
      write(reason, reason_size, std::string(argv[0]) + " not found on PATH");
      return ZL_ERR_UNAVAILABLE;
    }
    const Answer& a = found->second;
    if (a.status != ZL_OK) {
      write(reason, reason_size, a.reason);
      return a.status;
    }
    // In two chunks, as a pipe may deliver it.
    const size_t half = a.out.size() / 2;
    sink(sink_ctx, a.out.data(), half);
    sink(sink_ctx, a.out.data() + half, a.out.size() - half);
    *exit_code = a.exit_code;
    return ZL_OK;
  }

  static const char* env(void* ctx, const char* name)
  {
    const auto* self = static_cast<const FakeVendorHost*>(ctx);
    const auto found = self->m_env.find(name);
    return found == self->m_env.end() ? nullptr : found->second.c_str();
  }

  zl_host_api m_api{};
  std::map<std::string, Answer> m_answers;
  std::map<std::string, std::string> m_env;
  std::vector<std::string> m_calls;
};

// A core-side zl_enumeration with room for `capacity` devices.
struct Enumeration
{
  explicit Enumeration(uint32_t capacity = 8) : devices(capacity)
  {
    out.struct_size = sizeof(zl_enumeration);
    out.capacity = capacity;
    out.devices = devices.data();
  }
  Enumeration(const Enumeration&) = delete;
  Enumeration& operator=(const Enumeration&) = delete;

  std::string source() const { return out.source; }
  std::string reason() const { return out.reason; }

  std::vector<zl_device_info> devices;
  zl_enumeration out{};
};

// Whether a backend's reading holds no field at all (a tool that gave nothing to parse).
inline bool nothing_read(const sdk::Telemetry& t)
{
  return !t.sm_clock_mhz && !t.sm_clock_max_mhz && !t.mem_clock_mhz && !t.mem_clock_max_mhz && !t.locked_mhz &&
         !t.temperature_c && !t.power_w && !t.power_limit_w && !t.throttle && !t.ecc && !t.mig &&
         t.driver_version.empty() && t.firmware_version.empty();
}

} // namespace zl::test
