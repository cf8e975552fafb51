#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace zl::util {

std::vector<std::string> split(std::string_view s, char sep, bool skip_empty)
{
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const auto next = std::min(s.find(sep, pos), s.size());
    auto part = s.substr(pos, next - pos);
    if (!part.empty() || !skip_empty) {
      out.emplace_back(part);
    }
    pos = next + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep)
{
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string_view trim(std::string_view s)
{
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) {
    return {};
  }
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

bool is_identifier(std::string_view s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool is_op_name(std::string_view s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string format_bytes(unsigned long long bytes)
{
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

namespace {

// The length of the valid UTF-8 sequence at s[i] (2 to 4) and its code point; 0 when invalid.
std::size_t utf8_sequence(std::string_view s, std::size_t i, uint32_t& cp)
{
  const auto lead = static_cast<unsigned char>(s[i]);
  const std::size_t len = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead < 0xE0 ? 2 : 0;
  if (len == 0 || (len == 3 && lead >= 0xF0) || i + len > s.size()) {
    return 0;
  }
  cp = lead & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
  for (std::size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      return 0;
    }
    cp = (cp << 6) | (c & 0x3Fu);
  }
  const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  return overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : len;
}

// Invisible characters that change how the rest of a line reads.
bool hidden(uint32_t cp)
{
  return cp == 0xFEFF || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || (cp >= 0x80 && cp < 0xA0);
}

} // namespace

std::string printable(std::string_view text, std::size_t max)
{
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && out.size() < max) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x80) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      uint32_t cp = 0;
      const auto len = utf8_sequence(text, i, cp);
      if (len == 0) {
        out += fmt::format("\\x{:02x}", c);
        ++i;
      } else {
        out += hidden(cp) ? fmt::format("\\u{:04x}", cp) : std::string(text.substr(i, len));
        i += len;
      }
    }
  }
  if (i < text.size()) {
    out += fmt::format("\u2026({} more bytes)", text.size() - i);
  }
  return out;
}

std::string first_line(std::string_view text)
{
  text = trim(text);
  return std::string(trim(text.substr(0, text.find('\n'))));
}

void append_utf8(std::string& out, uint32_t cp)
{
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string shell_quote(const std::string& text)
{
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

} // namespace zl::util
