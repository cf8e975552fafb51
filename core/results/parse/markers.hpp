// Marker lines: `NAME key=value …`, one per event, in a run's log (docs/plan-file.md).
#pragma once

#include "results/model.hpp"

#include <string>
#include <string_view>

namespace zl::results::parse {

struct MarkerParse
{
  std::optional<Marker> marker; // the line is a marker
  std::string error;            // the line names one of zl's markers but is malformed
};

// Parses one line. A line is a marker when it starts with NAME ([A-Z][A-Z0-9_]*) followed by
// ` key=` ([a-z_][a-z0-9_]*), or is the bare name of a marker zl knows. A value is read as a
// JSON string when it starts with `"`, else up to the next space. A line that is not a marker
// (pytest's own output) gives neither marker nor error; a known marker that cannot be read
// gives an error, so that it is reported rather than silently lost.
MarkerParse parse_marker(std::string_view line);

// A marker name that zl's plugins or FlagGems' autotuner write.
bool is_known_marker(std::string_view name);

// Reads a JSON string literal starting at text[pos] == '"' into out; pos ends after the
// closing quote. False when it is not terminated or an escape is invalid.
bool read_json_string(std::string_view text, std::size_t& pos, std::string& out);

// A line made safe to quote in a message: control bytes and invalid UTF-8 as \xNN, at most
// max_chars characters.
std::string printable_excerpt(std::string_view line, std::size_t max_chars = 60);

} // namespace zl::results::parse
