#include "shapes/py_tokenizer.hpp"

#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace zl::shapes {

namespace {

constexpr std::array<std::string_view, 35> k_keywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

constexpr std::array<std::string_view, 5> k_ops3 = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::array<std::string_view, 19> k_ops2 = {
    "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};

bool is_name_start(char c)
{
  const auto u = static_cast<unsigned char>(c);
  return std::isalpha(u) != 0 || c == '_' || u >= 0x80;
}

bool is_name_char(char c)
{
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// String prefixes Python accepts, lower-cased (u only alone; t is PEP 750's template string).
std::string lower(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_string_prefix(const std::string& prefix)
{
  const auto p = lower(prefix);
  static const std::array<std::string_view, 12> prefixes = {"r",  "u",  "b",  "f",  "t",  "br",
                                                            "rb", "fr", "rf", "tr", "rt", ""};
  return std::find(prefixes.begin(), prefixes.end(), p) != prefixes.end();
}

class Tokenizer
{
public:
  explicit Tokenizer(std::string_view src) : m_src(src) {}

  std::vector<Token> run()
  {
    while (m_pos < m_src.size()) {
      if (m_line_start && m_brackets.empty() && !indentation()) {
        continue;
      }
      step();
    }
    if (!m_brackets.empty()) {
      throw SyntaxError(m_brackets.back().second, fmt::format("'{}' opened on line {} is never closed",
                                                              m_brackets.back().first, m_brackets.back().second));
    }
    end_logical_line();
    while (m_indents.size() > 1) {
      m_indents.pop_back();
      emit(TokenKind::dedent, "", m_pos);
    }
    emit(TokenKind::end, "", m_pos);
    return std::move(m_tokens);
  }

private:
  char at(size_t i) const { return i < m_src.size() ? m_src[i] : '\0'; }

  void emit(TokenKind kind, std::string text, size_t start)
  {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.line = m_line;
    t.column = static_cast<int>(start - std::min(start, m_line_begin));
    m_tokens.push_back(std::move(t));
  }

  void newline_seen(size_t after)
  {
    ++m_line;
    m_line_begin = after;
  }

  void end_logical_line()
  {
    if (!m_tokens.empty() && m_tokens.back().kind != TokenKind::newline && m_tokens.back().kind != TokenKind::indent &&
        m_tokens.back().kind != TokenKind::dedent) {
      emit(TokenKind::newline, "", m_pos);
    }
  }

  // At the start of a line: measures its indentation and emits indent/dedent. Returns false
  // when the line is blank or a comment (consumed whole, nothing emitted).
  bool indentation()
  {
    int col = 0;
    while (m_pos < m_src.size()) {
      const char c = m_src[m_pos];
      if (c == ' ') {
        ++col;
      } else if (c == '\t') {
        col = (col / 8 + 1) * 8;
      } else if (c == '\f') {
        col = 0;
      } else {
        break;
      }
      ++m_pos;
    }
    const char c = at(m_pos);
    if (c == '#' || c == '\n' || c == '\r' || m_pos >= m_src.size()) {
      while (m_pos < m_src.size() && m_src[m_pos] != '\n') {
        ++m_pos;
      }
      if (m_pos < m_src.size()) {
        newline_seen(++m_pos);
      }
      return false;
    }
    m_line_start = false;
    if (col > m_indents.back()) {
      m_indents.push_back(col);
      emit(TokenKind::indent, "", m_pos);
    }
    while (col < m_indents.back()) {
      m_indents.pop_back();
      emit(TokenKind::dedent, "", m_pos);
    }
    if (col != m_indents.back()) {
      throw SyntaxError(m_line, fmt::format("line {}: the indentation matches no outer block", m_line));
    }
    return true;
  }

  void step()
  {
    const size_t start = m_pos;
    const char c = m_src[m_pos];
    if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++m_pos;
    } else if (c == '#') {
      while (m_pos < m_src.size() && m_src[m_pos] != '\n') {
        ++m_pos;
      }
    } else if (c == '\\' && (at(m_pos + 1) == '\n' || (at(m_pos + 1) == '\r' && at(m_pos + 2) == '\n'))) {
      m_pos += at(m_pos + 1) == '\n' ? size_t{2} : size_t{3}; // a continuation joins the next line to this one
      newline_seen(m_pos);
    } else if (c == '\n') {
      if (m_brackets.empty()) {
        end_logical_line();
        m_line_start = true;
      }
      newline_seen(++m_pos);
    } else if (is_name_start(c)) {
      while (m_pos < m_src.size() && is_name_char(m_src[m_pos])) {
        ++m_pos;
      }
      const auto word = std::string(m_src.substr(start, m_pos - start));
      if ((at(m_pos) == '\'' || at(m_pos) == '"') && word.size() <= 2 && is_string_prefix(word)) {
        string_token(start, word);
      } else {
        emit(TokenKind::name, word, start);
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(at(m_pos + 1))) != 0)) {
      number(start);
    } else if (c == '\'' || c == '"') {
      string_token(start, "");
    } else {
      operator_token(start);
    }
  }

  void number(size_t start)
  {
    const bool hex = at(m_pos) == '0' && (at(m_pos + 1) == 'x' || at(m_pos + 1) == 'X');
    while (m_pos < m_src.size()) {
      const char c = m_src[m_pos];
      const char prev = m_pos > start ? m_src[m_pos - 1] : '\0';
      if (is_name_char(c) || c == '.' || (!hex && (c == '+' || c == '-') && (prev == 'e' || prev == 'E'))) {
        ++m_pos;
      } else {
        break;
      }
    }
    emit(TokenKind::number, std::string(m_src.substr(start, m_pos - start)), start);
  }

  void operator_token(size_t start)
  {
    std::string_view op = m_src.substr(m_pos, 1);
    for (auto candidate : k_ops3) {
      if (m_src.substr(m_pos, 3) == candidate) {
        op = candidate;
      }
    }
    if (op.size() == 1) {
      for (auto candidate : k_ops2) {
        if (m_src.substr(m_pos, candidate.size()) == candidate) {
          op = candidate;
          break;
        }
      }
    }
    m_pos += op.size();
    if (op == "(" || op == "[" || op == "{") {
      m_brackets.emplace_back(op[0], m_line);
    } else if (op == ")" || op == "]" || op == "}") {
      const char want = op == ")" ? '(' : op == "]" ? '[' : '{';
      if (m_brackets.empty() || m_brackets.back().first != want) {
        throw SyntaxError(m_line, fmt::format("line {}: unmatched '{}'", m_line, op));
      }
      m_brackets.pop_back();
    }
    emit(TokenKind::op, std::string(op), start);
  }

  void string_token(size_t start, const std::string& prefix_text)
  {
    const std::string prefix = lower(prefix_text);
    const int first_line = m_line;
    const size_t first_begin = m_line_begin;
    std::string value = read_string(prefix);
    Token t;
    t.kind = TokenKind::string;
    t.text = std::string(m_src.substr(start, m_pos - start));
    t.value = std::move(value);
    t.prefix = prefix;
    t.line = first_line;
    t.column = static_cast<int>(start - std::min(start, first_begin));
    m_tokens.push_back(std::move(t));
  }

  // From the opening quote to past the closing one; returns the decoded value.
  std::string read_string(const std::string& prefix)
  {
    const char q = m_src[m_pos];
    const bool triple = at(m_pos + 1) == q && at(m_pos + 2) == q;
    const bool raw = prefix.find('r') != std::string::npos;
    const bool formatted = prefix.find_first_of("ft") != std::string::npos;
    const int opened = m_line;
    m_pos += triple ? 3 : 1;
    std::string value;
    for (;;) {
      if (m_pos >= m_src.size()) {
        throw SyntaxError(opened, fmt::format("the string opened on line {} is never closed", opened));
      }
      const char c = m_src[m_pos];
      if (c == '\\' && m_pos + 1 < m_src.size()) {
        escape(value, raw);
      } else if (c == q && (!triple || (at(m_pos + 1) == q && at(m_pos + 2) == q))) {
        m_pos += triple ? 3 : 1;
        return value;
      } else if (c == '\n') {
        if (!triple) {
          throw SyntaxError(opened, fmt::format("the string opened on line {} is never closed", opened));
        }
        value += c;
        newline_seen(++m_pos);
      } else if (formatted && (c == '{' || c == '}')) {
        if (at(m_pos + 1) == c) {
          value += c;
          m_pos += 2;
        } else if (c == '{') {
          replacement_field(value);
        } else {
          value += c;
          ++m_pos;
        }
      } else {
        value += c;
        ++m_pos;
      }
    }
  }

  // An f-string's {expression!r:spec}: skipped as code, so quotes inside it (PEP 701 allows the
  // f-string's own quote there) and nested fields in the spec do not end the string early.
  void replacement_field(std::string& value)
  {
    const size_t start = m_pos++;
    int depth = 1;
    while (depth > 0) {
      if (m_pos >= m_src.size()) {
        throw SyntaxError(m_line, fmt::format("line {}: an f-string field is never closed", m_line));
      }
      const char c = m_src[m_pos];
      if (c == '\'' || c == '"') {
        read_string("");
      } else if (is_name_start(c)) {
        const size_t word = m_pos;
        while (m_pos < m_src.size() && is_name_char(m_src[m_pos])) {
          ++m_pos;
        }
        auto prefix = std::string(m_src.substr(word, m_pos - word));
        if ((at(m_pos) == '\'' || at(m_pos) == '"') && prefix.size() <= 2 && is_string_prefix(prefix)) {
          read_string(lower(prefix));
        }
      } else {
        depth += c == '{' || c == '(' || c == '[' ? 1 : c == '}' || c == ')' || c == ']' ? -1 : 0;
        if (c == '\n') {
          newline_seen(m_pos + 1);
        }
        ++m_pos;
      }
    }
    value += std::string(m_src.substr(start, m_pos - start));
  }

  void escape(std::string& value, bool raw)
  {
    const char e = m_src[m_pos + 1];
    if (raw) { // a raw string keeps the backslash, but \" still does not close it
      value += '\\';
      value += e;
      m_pos += 2;
      if (e == '\n') {
        newline_seen(m_pos);
      }
      return;
    }
    m_pos += 2;
    auto hex = [&](size_t n) {
      uint32_t cp = 0;
      for (size_t i = 0; i < n && std::isxdigit(static_cast<unsigned char>(at(m_pos))) != 0; ++i, ++m_pos) {
        cp = cp * 16 + static_cast<uint32_t>(std::stoi(std::string(1, m_src[m_pos]), nullptr, 16));
      }
      return cp;
    };
    constexpr std::string_view from = "ntr0abfv\\'\"";
    constexpr std::string_view to("\n\t\r\0\a\b\f\v\\'\"", 11);
    if (const auto i = from.find(e); i != std::string_view::npos) {
      value += to[i];
    } else if (e == '\n') {
      newline_seen(m_pos); // a continuation inside the string
    } else if (e == 'x' || e == 'u' || e == 'U') {
      util::append_utf8(value, hex(e == 'x' ? 2 : e == 'u' ? 4 : 8));
    } else {
      value += '\\'; // \N{…} and unknown escapes stay as written
      value += e;
    }
  }

  std::string_view m_src;
  size_t m_pos = 0;
  size_t m_line_begin = 0;
  int m_line = 1;
  bool m_line_start = true;
  std::vector<int> m_indents{0};
  std::vector<std::pair<char, int>> m_brackets; // open bracket, line
  std::vector<Token> m_tokens;
};

} // namespace

bool is_keyword(std::string_view s)
{
  return std::find(k_keywords.begin(), k_keywords.end(), s) != k_keywords.end();
}

std::vector<Token> tokenize(std::string_view source)
{
  return Tokenizer(source).run();
}

} // namespace zl::shapes
