#include "results/parse/markers.hpp"

#include "results/parse/marker_names.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace zl::results::parse {

namespace {

namespace names = marker_names;

// Those whose malformed lines are reported (parse_marker).
constexpr std::array<std::string_view, 12> k_known = {
    names::k_zl_run,
    names::k_zl_timer,
    names::k_benchmark_direct_no_cudagraph,
    names::k_benchmark_capture_poisoned,
    names::k_benchmark_capture_denied,
    names::k_autotune_replay_fallback,
    names::k_zl_compat_dropped,
    names::k_zl_compat_kept,
    names::k_zl_device_mismatch,
    names::k_zl_identity_write_failed,
    names::k_zl_unsupported,
    names::k_preflight_failed,
};

bool is_upper(char c)
{
  return c >= 'A' && c <= 'Z';
}
bool is_lower(char c)
{
  return (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

int hex_value(char c)
{
  if (is_digit(c)) {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

bool read_hex4(std::string_view text, std::size_t pos, unsigned& out)
{
  if (pos + 4 > text.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const int h = hex_value(text[pos + i]);
    if (h < 0) {
      return false;
    }
    out = out * 16 + static_cast<unsigned>(h);
  }
  return true;
}

} // namespace

bool is_known_marker(std::string_view name)
{
  return std::find(k_known.begin(), k_known.end(), name) != k_known.end();
}

bool read_json_string(std::string_view text, std::size_t& pos, std::string& out)
{
  out.clear();
  std::size_t i = pos + 1;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      pos = i + 1;
      return true;
    }
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) {
      return false;
    }
    const char e = text[i + 1];
    i += 2;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      out += e;
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'u': {
      unsigned cp = 0;
      if (!read_hex4(text, i, cp)) {
        return false;
      }
      i += 4;
      // A high surrogate pairs with the \uDC00–\uDFFF that follows it (json.dumps writes those).
      if (cp >= 0xD800 && cp < 0xDC00) {
        unsigned low = 0;
        if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u' || !read_hex4(text, i + 2, low) ||
            low < 0xDC00 || low > 0xDFFF) {
          return false;
        }
        i += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
      util::append_utf8(out, cp);
      break;
    }
    default:
      return false;
    }
  }
  return false;
}

MarkerParse parse_marker(std::string_view line)
{
  MarkerParse result;
  if (line.empty() || !is_upper(line[0])) {
    return result;
  }
  std::size_t i = 1;
  while (i < line.size() && (is_upper(line[i]) || is_digit(line[i]) || line[i] == '_')) {
    ++i;
  }
  const auto name = line.substr(0, i);
  const bool known = is_known_marker(name);
  if (i == line.size()) {
    if (known) {
      result.marker = Marker{std::string(name), {}, 0, -1, {}};
    }
    return result;
  }
  // Not a marker unless the name is followed by ` key=`.
  auto starts_field = [&](std::size_t at) {
    if (at >= line.size() || !is_lower(line[at])) {
      return false;
    }
    while (at < line.size() && (is_lower(line[at]) || is_digit(line[at]))) {
      ++at;
    }
    return at < line.size() && line[at] == '=';
  };
  if (line[i] != ' ' || !starts_field(i + 1)) {
    if (known) {
      result.error = fmt::format("{} marker without key=value fields", name);
    }
    return result;
  }
  Marker m;
  m.name = std::string(name);
  // Past this point the line is a marker, or, for a name zl does not know, someone else's text.
  auto malformed = [&](std::string error) {
    result.error = known ? std::move(error) : std::string();
    return result;
  };
  while (i < line.size()) {
    if (line[i] != ' ' || !starts_field(i + 1)) {
      return malformed(fmt::format("{} marker: expected ' key=value' at column {}", name, i + 1));
    }
    const std::size_t key_begin = i + 1;
    const std::size_t eq = line.find('=', key_begin);
    std::string key(line.substr(key_begin, eq - key_begin));
    std::string value;
    std::size_t pos = eq + 1;
    if (pos < line.size() && line[pos] == '"') {
      if (!read_json_string(line, pos, value)) {
        return malformed(
            fmt::format("{} marker: the value of {}= is an unterminated or invalid JSON string", name, key));
      }
    } else {
      const std::size_t end = std::min(line.find(' ', pos), line.size());
      value = std::string(line.substr(pos, end - pos));
      pos = end;
    }
    m.fields.emplace_back(std::move(key), std::move(value));
    i = pos;
  }
  result.marker = std::move(m);
  return result;
}

std::string printable_excerpt(std::string_view line, std::size_t max_chars)
{
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < line.size() && shown < max_chars; ++shown) {
    const auto c = static_cast<unsigned char>(line[i]);
    // Accept well-formed UTF-8 sequences as they are; escape everything else.
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= line.size() && (c >= 0x20 || c == '\t') && c != 0x7F;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(line[i + k]) & 0xC0) == 0x80;
    }
    if (ok) {
      out.append(line.substr(i, len));
      i += len;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
    if (shown + 1 == max_chars && i < line.size()) {
      out += "…";
    }
  }
  return out;
}

} // namespace zl::results::parse
