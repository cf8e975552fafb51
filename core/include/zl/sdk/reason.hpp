// Reasons: the pieces of the one sentence a user reads when a backend lists no devices or
// something failed (zl/backend_sdk.hpp says how the SDK's headers fit together).
#pragma once

#include <zl/sdk/text.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// A line of tool output as a reason quotes it: in single quotes, cut at 160 bytes so that one
// runaway line cannot fill the 512-byte reason.
inline std::string quote(std::string_view line)
{
  constexpr size_t k_max = 160;
  if (line.size() > k_max) {
    return "'" + std::string(line.substr(0, k_max)) + "…'";
  }
  return "'" + std::string(line) + "'";
}

// "line 3 '<text>'": where a parser stopped, so the user can find it in the tool's output.
inline std::string quote_line(size_t number, std::string_view line)
{
  return "line " + std::to_string(number) + " " + quote(line);
}

// The first line with text, trimmed and quoted; empty when there is none. Tools that fail on
// standard output say why in their first line.
inline std::string first_line_quoted(std::string_view text)
{
  for (auto line : lines(text)) {
    if (!trim(line).empty()) {
      return quote(trim(line));
    }
  }
  return {};
}

// Joins the non-empty notes with "; ": reasons collect what each fallback step ran into.
inline std::string join_notes(std::initializer_list<std::string_view> notes)
{
  std::string out;
  for (auto note : notes) {
    if (!note.empty()) {
      out += (out.empty() ? "" : "; ") + std::string(note);
    }
  }
  return out;
}

// The same over a list collected as a reading goes.
inline std::string join_notes(const std::vector<std::string>& notes)
{
  std::string out;
  for (const auto& note : notes) {
    if (!note.empty()) {
      out += (out.empty() ? "" : "; ") + note;
    }
  }
  return out;
}

// "<function> returned <rc>": a management-library call that did not succeed, named for a reason.
inline std::string call_failed(std::string_view function, int rc)
{
  return std::string(function) + " returned " + std::to_string(rc);
}

} // namespace zl::sdk
