// A tokenizer for Python source, enough to read FlagGems' benchmark modules without running
// them: the sweep is planned before any benchmark object exists, so classes, decorators and
// constructor calls are read from the source. It knows what a line-based regular expression
// does not: strings with every prefix and triple quotes (a "class X(" inside a docstring is
// not a class), f-strings with nested quotes and fields, comments, bracket nesting (a call
// spread over lines), backslash continuations, and indentation.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zl::shapes {

enum class TokenKind {
  name,
  number,
  string,
  op,      // operators and punctuation, longest match: ( ) [ ] { } , : . = == ** -> :=
  newline, // the end of a logical line (never inside brackets or after a continuation)
  indent,
  dedent,
  end,
};

struct Token
{
  TokenKind kind = TokenKind::end;
  std::string text;   // the source text (a string with its prefix and quotes)
  std::string value;  // a string's value with escapes decoded (bytes: the bytes as written)
  std::string prefix; // a string's prefix, lower case: "", "r", "b", "rb", "f", "rf", "u", "t"
  int line = 0;       // 1-based, where the token starts
  int column = 0;     // 0-based byte column

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_op(std::string_view t) const { return is(TokenKind::op, t); }
  bool is_name(std::string_view t) const { return is(TokenKind::name, t); }
  // A string whose value is known without running anything: not an f- or t-string.
  bool is_literal_string() const
  {
    return kind == TokenKind::string && prefix.find_first_of("ft") == std::string::npos;
  }
};

// Source that is not Python the tokenizer can follow: an unterminated string, an unmatched
// bracket, an inconsistent dedent. line is where it was noticed.
class SyntaxError : public std::runtime_error
{
public:
  SyntaxError(int line, const std::string& message) : std::runtime_error(message), m_line(line) {}
  int line() const { return m_line; }

private:
  int m_line;
};

// The tokens of source, ending with newline (when the last line had any), dedents back to
// column 0, and end. Blank and comment-only lines produce nothing. Throws SyntaxError.
std::vector<Token> tokenize(std::string_view source);

// Whether s is a Python keyword (not a name a call or a class can have).
bool is_keyword(std::string_view s);

} // namespace zl::shapes
