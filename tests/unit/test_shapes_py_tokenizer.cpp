#include "shapes/py_tokenizer.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace zl::shapes;

namespace {

std::vector<Token> of_kind(const std::vector<Token>& tokens, TokenKind kind)
{
  std::vector<Token> out;
  for (const auto& t : tokens) {
    if (t.kind == kind) {
      out.push_back(t);
    }
  }
  return out;
}

std::vector<std::string> texts(const std::vector<Token>& tokens)
{
  std::vector<std::string> out;
  for (const auto& t : tokens) {
    out.push_back(t.kind == TokenKind::newline  ? "NL"
                  : t.kind == TokenKind::indent ? "IN"
                  : t.kind == TokenKind::dedent ? "DE"
                  : t.kind == TokenKind::end    ? "END"
                                                : t.text);
  }
  return out;
}

int line_of(const std::vector<Token>& tokens, const std::string& name)
{
  for (const auto& t : tokens) {
    if (t.is_name(name)) {
      return t.line;
    }
  }
  return -1;
}

} // namespace

TEST_CASE("zl::shapes::tokenize: logical lines, indentation, brackets and continuations")
{
  const auto t =
      tokenize("class A(B):\n    x = f(1,\n          2)  # a comment (\n\n    y = 1 + \\\n        2\nz = 3\n");
  CHECK(texts(t) == std::vector<std::string>{"class", "A", "(",  "B",  ")", ":", "NL", "IN", "x",  "=",
                                             "f",     "(", "1",  ",",  "2", ")", "NL", "y",  "=",  "1",
                                             "+",     "2", "NL", "DE", "z", "=", "3",  "NL", "END"});
  CHECK(line_of(t, "y") == 5);
  CHECK(line_of(t, "z") == 7);
  CHECK(tokenize("a ** b -> c := d != e ... f")[1].text == "**");
  CHECK(texts(tokenize("x\n")).back() == "END");
  CHECK(texts(tokenize("  \n# only a comment\n")) == std::vector<std::string>{"END"});
}

TEST_CASE("zl::shapes::tokenize: strings of every prefix, triple quotes and escapes")
{
  const auto strings =
      of_kind(tokenize(R"(a = 'x' "y\"z" r'\d\'' b"\x41" Rb'\n' u"\u00e9" F"{v}" rf'{w}')"), TokenKind::string);
  REQUIRE(strings.size() == 8);
  CHECK(strings[0].value == "x");
  CHECK(strings[1].value == "y\"z");
  CHECK(strings[2].value == "\\d\\'"); // raw: backslashes kept, \' does not close it
  CHECK(strings[2].prefix == "r");
  CHECK(strings[3].value == "A");
  CHECK(strings[4].prefix == "rb");
  CHECK(strings[4].value == "\\n");
  CHECK(strings[5].value == "\xc3\xa9");
  CHECK(strings[6].prefix == "f");
  CHECK_FALSE(strings[6].is_literal_string());
  CHECK(strings[7].prefix == "rf");

  const auto t = tokenize("s = '''a 'quoted' \"\"\" line\nclass Fake(Base):\n    '''\nafter = 1\n");
  CHECK(of_kind(t, TokenKind::name).size() == 2); // s, after: the class inside the string is text
  CHECK(line_of(t, "after") == 4);
  const auto dq = of_kind(tokenize("d = \"\"\"x\"\"y\"\"\"\n"), TokenKind::string);
  CHECK(dq.at(0).value == "x\"\"y");
}

TEST_CASE("zl::shapes::tokenize: f-strings with nested quotes, fields and escaped braces")
{
  const auto t = tokenize("a = f\"{x[\"k\"]} {{lit}} {y!r:>{w}}\" + f'{\"}\"}'\nb = 2\n");
  const auto strings = of_kind(t, TokenKind::string);
  REQUIRE(strings.size() == 2);
  CHECK(strings[0].value.find("{lit}") != std::string::npos);
  CHECK(line_of(t, "b") == 2);
  CHECK(of_kind(t, TokenKind::name).size() == 2);
}

TEST_CASE("zl::shapes::tokenize: what it cannot follow names the line")
{
  auto fails_at = [](const std::string& src) {
    try {
      tokenize(src);
    } catch (const SyntaxError& e) {
      return e.line();
    }
    return 0;
  };
  CHECK(fails_at("a = 1\nb = 'open\n") == 2);
  CHECK(fails_at("a = '''never\nclosed\n") == 1);
  CHECK(fails_at("x = (1,\n 2\n") == 1);
  CHECK(fails_at("x = 1)\n") == 1);
  CHECK(fails_at("if x:\n        a\n    b\n") == 3);
  CHECK(is_keyword("class"));
  CHECK_FALSE(is_keyword("print"));
}
