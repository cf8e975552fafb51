// Header-only conveniences for backend authors. Compiled into the module; nothing here crosses
// the ABI (backend_abi.h is the contract). Functions never throw out of enumerate_devices: the
// entry points wrap them in catch-all blocks.
#pragma once

#include <zl/backend_abi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// Copies src into a fixed ABI buffer, truncating and always NUL-terminating.
template <size_t N>
inline void copy_field(char (&dst)[N], std::string_view src)
{
  const size_t n = src.size() < N - 1 ? src.size() : N - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

inline std::string_view trim(std::string_view s)
{
  const char* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) {
    return {};
  }
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

inline std::vector<std::string_view> split(std::string_view s, std::string_view sep)
{
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const auto next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) {
      return out;
    }
    pos = next + sep.size();
  }
}

inline std::vector<std::string_view> lines(std::string_view s)
{
  std::vector<std::string_view> out;
  for (auto line : split(s, "\n")) {
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    out.push_back(line);
  }
  if (!out.empty() && out.back().empty()) {
    out.pop_back();
  }
  return out;
}

inline bool starts_with(std::string_view s, std::string_view prefix)
{
  return s.substr(0, prefix.size()) == prefix;
}

// Parses a non-negative decimal integer that fills the whole (trimmed) string.
inline bool parse_u64(std::string_view s, uint64_t& out)
{
  s = trim(s);
  if (s.empty() || s.size() > 19) {
    return false;
  }
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

// The result of running a vendor tool through the host.
struct ToolOutput
{
  zl_status status = ZL_OK;
  int exit_code = 0;
  std::string out;    // standard output
  std::string reason; // the host's sentence when status is not ZL_OK
};

inline ToolOutput run_tool(const zl_host_api* host, const std::vector<std::string>& argv,
                           uint32_t timeout_ms = 20000)
{
  ToolOutput result;
  std::vector<const char*> args;
  for (const auto& a : argv) {
    args.push_back(a.c_str());
  }
  args.push_back(nullptr);
  char reason[512] = {};
  auto sink = [](void* ctx, const char* data, size_t size) {
    static_cast<std::string*>(ctx)->append(data, size);
  };
  result.status = host->run_program(host->ctx, args.data(), timeout_ms, sink, &result.out,
                                    &result.exit_code, reason, sizeof(reason));
  result.reason = reason;
  return result;
}

// Fills out->reason and returns ZL_OK with no devices: "no devices, because …".
inline zl_status no_devices(zl_enumeration* out, std::string_view why)
{
  out->count = 0;
  copy_field(out->reason, why);
  return ZL_OK;
}

} // namespace zl::sdk
