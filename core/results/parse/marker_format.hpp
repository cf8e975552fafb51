// Writing marker lines, `NAME key=value …` (docs/plan-file.md, "Marker lines"): the format
// markers.hpp reads back, kept beside it so that writer and reader change together. zl writes
// them itself (ZL_RUN, the sweep's markers); the Python plugins write the same format.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::results::parse {

// A marker line's value: bare when it has no whitespace, '"' or '=', else a JSON string literal.
std::string marker_value(std::string_view value);

// NAME key=value … as one marker line, without the newline.
std::string marker_line(std::string_view name, const std::vector<std::pair<std::string, std::string>>& fields);

} // namespace zl::results::parse
