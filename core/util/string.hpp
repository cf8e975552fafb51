#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::util {

std::vector<std::string> split(std::string_view s, char sep, bool skip_empty = true);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view trim(std::string_view s);
bool is_identifier(std::string_view s); // [a-z0-9_]+
// An op name: [A-Za-z0-9_]+ (FlagGems has benchmark/test_Concat.py).
bool is_op_name(std::string_view s);
// 'text' with every ' written as '\'' : one word for a POSIX shell or Python's shlex, whatever
// text holds.
std::string shell_quote(const std::string& text);
// Levenshtein distance, for "did you mean".
size_t edit_distance(std::string_view a, std::string_view b);
// Formats a byte count as "80.0 GiB".
std::string format_bytes(unsigned long long bytes);
// Appends the UTF-8 bytes of a Unicode code point (for \u escapes in JSON and Python strings).
void append_utf8(std::string& out, uint32_t cp);
// text made safe to echo in a message: control bytes, NULs, invalid UTF-8, byte-order marks and
// bidirectional overrides as \xNN or \uNNNN escapes (a backslash as \\), and at most max bytes
// of it kept ("…(N more bytes)" says how much was cut).
std::string printable(std::string_view text, std::size_t max = 200);
// The first line of text, trimmed; for quoting tool output in messages.
std::string first_line(std::string_view text);

} // namespace zl::util
