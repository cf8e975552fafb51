#include "host/host_api.hpp"

#include "util/process.hpp"
#include "util/string.hpp"

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

namespace zl::host {

namespace {

void write_reason(char* reason, size_t size, const std::string& text)
{
  if (reason == nullptr || size == 0) {
    return;
  }
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(reason, text.data(), n);
  reason[n] = '\0';
}

zl_status run_program(void* /*ctx*/, const char* const* argv, uint32_t timeout_ms,
                      void (*sink)(void*, const char*, size_t), void* sink_ctx, int* exit_code, char* reason,
                      size_t reason_size) noexcept
{
  try {
    util::SpawnSpec spec;
    for (auto arg = argv; arg != nullptr && *arg != nullptr; ++arg) {
      spec.argv.emplace_back(*arg);
    }
    if (spec.argv.empty()) {
      write_reason(reason, reason_size, "empty command line");
      return ZL_ERR_INTERNAL;
    }
    if (!util::find_program(spec.argv[0])) {
      write_reason(reason, reason_size, fmt::format("{} not found on PATH", spec.argv[0]));
      return ZL_ERR_UNAVAILABLE;
    }
    spec.timeout = std::chrono::milliseconds(timeout_ms);
    std::string err;
    const auto result = util::run(
        spec,
        [&](std::string_view chunk) {
          if (sink != nullptr) {
            sink(sink_ctx, chunk.data(), chunk.size());
          }
        },
        [&](std::string_view chunk) { err.append(chunk); });
    if (exit_code != nullptr) {
      *exit_code = result.exit_code;
    }
    if (result.timed_out) {
      write_reason(reason, reason_size,
                   fmt::format("{} did not finish within {} ms and was killed", spec.argv[0], timeout_ms));
      return ZL_ERR_TOOL_FAILED;
    }
    if (result.exit_code != 0) {
      // Tools say why they failed on standard error; hand its last line to the backend.
      const auto lines = util::split(err, '\n');
      write_reason(reason, reason_size, lines.empty() ? std::string() : std::string(util::trim(lines.back())));
    }
    return ZL_OK;
  } catch (const util::SpawnFailure& e) {
    write_reason(reason, reason_size, e.message);
    return ZL_ERR_UNAVAILABLE;
  } catch (const std::exception& e) {
    write_reason(reason, reason_size, e.what());
    return ZL_ERR_INTERNAL;
  } catch (...) {
    write_reason(reason, reason_size, "unknown failure while running a tool");
    return ZL_ERR_INTERNAL;
  }
}

const char* get_env(void* /*ctx*/, const char* name) noexcept
{
  return name != nullptr ? std::getenv(name) : nullptr;
}

} // namespace

HostApi::HostApi() : m_api{}
{
  m_api.struct_size = sizeof(zl_host_api);
  m_api.ctx = this;
  m_api.run_program = run_program;
  m_api.get_env = get_env;
}

} // namespace zl::host
