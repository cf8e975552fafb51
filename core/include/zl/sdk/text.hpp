// Text: the string helpers every parser of vendor output needs (zl/backend_sdk.hpp says how the
// SDK's headers fit together). Nothing here crosses the ABI or needs the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
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

// Drops spaces, tabs and line ends at both ends: tools pad their columns.
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

// Every piece between separators, empty ones included, so field counts stay exact: "a,,b" is
// three fields, "a," two, and "" one empty field. skip_empty drops the empty pieces ("" is then
// no field). The rule is the core's util::split (core/util/string.hpp), whose default is the
// other one; tests/unit/test_sdk_text.cpp pins that the two agree. An empty separator splits
// nothing: the whole of s is the one field.
inline std::vector<std::string_view> split(std::string_view s, std::string_view sep, bool skip_empty = false)
{
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const auto next = sep.empty() ? std::string_view::npos : s.find(sep, pos);
    const auto piece = s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    if (!piece.empty() || !skip_empty) {
      out.push_back(piece);
    }
    if (next == std::string_view::npos) {
      return out;
    }
    pos = next + sep.size();
  }
}

// The lines of a tool's output without their "\n" or "\r\n"; a final line end adds no empty line.
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

// std::string_view::starts_with is C++20; backends build as C++17.
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

// parse_u64 of a value that fits 32 bits (a clock, an index); nothing when it does not.
inline std::optional<uint32_t> parse_u32(std::string_view s)
{
  uint64_t n = 0;
  if (!parse_u64(s, n) || n > UINT32_MAX) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(n);
}

// A string a vendor library wrote into a fixed buffer: up to the first NUL (or the buffer's end,
// since not every library terminates a full buffer), trimmed.
inline std::string text_field(const char* buffer, size_t capacity)
{
  return std::string(trim(std::string_view(buffer, strnlen(buffer, capacity))));
}

// text_field for a char array, whose size is the capacity.
template <size_t N>
inline std::string text_field(const char (&buffer)[N])
{
  return text_field(buffer, N);
}

} // namespace zl::sdk
