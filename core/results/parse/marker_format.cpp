#include "results/parse/marker_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace zl::results::parse {

std::string marker_value(std::string_view value)
{
  const bool bare = std::none_of(value.begin(), value.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '"' || c == '=';
  });
  if (bare) {
    return std::string(value);
  }
  std::string out = "\"";
  for (const char c : value) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      out +=
          static_cast<unsigned char>(c) < 0x20 ? fmt::format("\\u{:04x}", static_cast<unsigned>(c)) : std::string(1, c);
    }
  }
  return out + "\"";
}

std::string marker_line(std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields)
{
  std::string line(name);
  for (const auto& [k, v] : fields) {
    line += " " + k + "=" + marker_value(v);
  }
  return line;
}

} // namespace zl::results::parse
