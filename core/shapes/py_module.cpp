#include "shapes/py_module.hpp"

#include "shapes/py_tokenizer.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace zl::shapes {

namespace {

constexpr std::array<std::string_view, 7> k_pytest_marks = {"parametrize", "skip",           "skipif", "xfail",
                                                            "usefixtures", "filterwarnings", "timeout"};

bool opens(const Token& t)
{
  return t.is_op("(") || t.is_op("[") || t.is_op("{");
}

bool closes(const Token& t)
{
  return t.is_op(")") || t.is_op("]") || t.is_op("}");
}

bool wordlike(const Token& t)
{
  return t.kind == TokenKind::name || t.kind == TokenKind::number || t.kind == TokenKind::string;
}

// Source text of tokens [begin, end): words separated by a space, operators glued.
std::string join_text(const std::vector<Token>& t, size_t begin, size_t end)
{
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin && wordlike(t[i]) && wordlike(t[i - 1])) {
      out += ' ';
    }
    out += t[i].text;
  }
  return out;
}

class Scanner
{
public:
  Scanner(const std::vector<Token>& tokens, Module& module) : t(tokens), m(module) {}

  void run()
  {
    bool line_start = true;
    for (size_t i = 0; i < t.size();) {
      const Token& k = t[i];
      if (k.kind == TokenKind::end) {
        break;
      }
      if (k.kind == TokenKind::indent) {
        m_blocks.push_back(m_pending.value_or(Block{}));
        m_pending.reset();
      } else if (k.kind == TokenKind::dedent) {
        if (!m_blocks.empty()) {
          m_blocks.pop_back();
        }
      } else if (k.kind == TokenKind::newline) {
        m_line_owner.reset();
      }
      if (k.kind == TokenKind::indent || k.kind == TokenKind::dedent || k.kind == TokenKind::newline) {
        line_start = true;
        ++i;
        continue;
      }
      if (line_start) {
        statement(i);
        line_start = false;
      }
      if (k.kind == TokenKind::name && !is_keyword(k.text) && (i == 0 || !t[i - 1].is_op(".")) &&
          (i == 0 || !(t[i - 1].is_name("def") || t[i - 1].is_name("class")))) {
        call_at(i);
      }
      ++i;
    }
  }

private:
  struct Block
  {
    bool is_def = false;
    bool is_class = false;
    std::string name;
  };

  // The dotted name starting at i (NAME ('.' NAME)*); end is one past its last token.
  std::string dotted(size_t i, size_t& end) const
  {
    std::string name = t[i].text;
    end = i + 1;
    while (end + 1 < t.size() && t[end].is_op(".") && t[end + 1].kind == TokenKind::name) {
      name += "." + t[end + 1].text;
      end += 2;
    }
    return name;
  }

  size_t line_end(size_t i) const
  {
    while (i < t.size() && t[i].kind != TokenKind::newline && t[i].kind != TokenKind::end) {
      ++i;
    }
    return i;
  }

  std::string enclosing_function() const
  {
    if (m_line_owner && m_line_owner->is_def) {
      return m_line_owner->name;
    }
    for (auto it = m_blocks.rbegin(); it != m_blocks.rend(); ++it) {
      if (it->is_def) {
        return it->name;
      }
    }
    return "";
  }

  int depth() const { return static_cast<int>(m_blocks.size()); }

  // A compound statement's header: the next INDENT opens its block, unless its body follows
  // the colon on the same line.
  void open_block(size_t i, const Block& block)
  {
    int level = 0;
    const size_t end = line_end(i);
    for (size_t j = i; j < end; ++j) {
      level += opens(t[j]) ? 1 : closes(t[j]) ? -1 : 0;
      if (level == 0 && t[j].is_op(":")) {
        if (j + 1 < end) {
          m_line_owner = block;
        } else {
          m_pending = block;
        }
        return;
      }
    }
  }

  void statement(size_t i)
  {
    const Token& k = t[i];
    size_t end = 0;
    if (k.is_op("@") && i + 1 < t.size() && t[i + 1].kind == TokenKind::name) {
      m_decorators.push_back(dotted(i + 1, end));
    } else if (k.is_name("async") && i + 1 < t.size() && t[i + 1].is_name("def")) {
      statement(i + 1);
    } else if (k.is_name("def") && i + 1 < t.size() && t[i + 1].kind == TokenKind::name) {
      FunctionDef f{t[i + 1].text, std::move(m_decorators), "", k.line, depth()};
      m_decorators.clear();
      if (!m_blocks.empty() && m_blocks.back().is_class) {
        f.cls = m_blocks.back().name;
      }
      m.functions.push_back(std::move(f));
      open_block(i, Block{true, false, t[i + 1].text});
    } else if (k.is_name("class") && i + 1 < t.size() && t[i + 1].kind == TokenKind::name) {
      ClassDef c{t[i + 1].text, {}, k.line, depth()};
      m_decorators.clear();
      if (i + 2 < t.size() && t[i + 2].is_op("(")) {
        for (const auto& arg : arguments(i + 2)) {
          if (arg.keyword.empty()) {
            c.bases.push_back(arg.text);
          }
        }
      }
      m.classes.push_back(std::move(c));
      open_block(i, Block{false, true, t[i + 1].text});
    } else if (k.is_name("import")) {
      import_names(i + 1, "");
    } else if (k.is_name("from")) {
      std::string module;
      size_t j = i + 1;
      for (; j < t.size() && !t[j].is_name("import") && t[j].kind != TokenKind::newline; ++j) {
        module += t[j].text;
      }
      import_names(j + 1, module);
    } else if (k.is_name("pytestmark") && m_blocks.empty()) {
      for (size_t j = i; j + 4 < line_end(i); ++j) {
        if (t[j].is_name("pytest") && t[j + 1].is_op(".") && t[j + 2].is_name("mark") && t[j + 3].is_op(".")) {
          m.module_marks.push_back(t[j + 4].text);
        }
      }
    } else if (k.kind == TokenKind::name || k.kind == TokenKind::op) {
      m_decorators.clear(); // decorators belong to the def or class right below them
    }
  }

  // `import a.b as c, d` (module empty) or the names after `from M import`.
  void import_names(size_t i, const std::string& module)
  {
    const size_t end = line_end(i);
    for (size_t j = i; j < end; ++j) {
      if (t[j].kind != TokenKind::name && !t[j].is_op("*")) {
        continue;
      }
      size_t after = j + 1;
      const std::string name = t[j].is_op("*") ? "*" : dotted(j, after);
      std::string local = module.empty() ? name.substr(0, name.find('.')) : name;
      if (after + 1 < end && t[after].is_name("as") && t[after + 1].kind == TokenKind::name) {
        local = t[after + 1].text;
        after += 2;
      }
      m.imports.push_back(module.empty() ? Import{local, name, "", t[j].line} : Import{local, module, name, t[j].line});
      j = after - 1;
    }
  }

  // The arguments of the call whose '(' is at open.
  std::vector<Argument> arguments(size_t open) const
  {
    std::vector<Argument> args;
    int level = 0;
    size_t begin = open + 1;
    for (size_t j = open + 1; j < t.size() && t[j].kind != TokenKind::end; ++j) {
      const bool last = level == 0 && t[j].is_op(")");
      if (last || (level == 0 && t[j].is_op(","))) {
        if (j > begin) {
          args.push_back(argument(begin, j));
        }
        if (last) {
          break;
        }
        begin = j + 1;
      } else {
        level += opens(t[j]) ? 1 : closes(t[j]) ? -1 : 0;
      }
    }
    return args;
  }

  Argument argument(size_t begin, size_t end) const
  {
    Argument a;
    if (end - begin >= 2 && t[begin].kind == TokenKind::name && t[begin + 1].is_op("=")) {
      a.keyword = t[begin].text;
      begin += 2;
    } else if (t[begin].is_op("*") || t[begin].is_op("**")) {
      a.keyword = t[begin].text;
      ++begin;
    }
    a.text = join_text(t, begin, end);
    std::string value;
    bool literal = begin < end;
    for (size_t j = begin; j < end && literal; ++j) {
      literal = t[j].is_literal_string() && t[j].prefix.find('b') == std::string::npos;
      value += t[j].value;
    }
    if (literal) {
      a.literal = value;
    }
    return a;
  }

  void call_at(size_t i)
  {
    size_t end = 0;
    auto callee = dotted(i, end);
    if (end < t.size() && t[end].is_op("(")) {
      m.calls.push_back(Call{std::move(callee), arguments(end), enclosing_function(), t[i].line});
    }
  }

  const std::vector<Token>& t;
  Module& m;
  std::vector<Block> m_blocks;
  std::optional<Block> m_pending;
  std::optional<Block> m_line_owner;
  std::vector<std::string> m_decorators;
};

} // namespace

const Argument* Call::keyword(std::string_view name) const
{
  for (const auto& a : args) {
    if (a.keyword == name) {
      return &a;
    }
  }
  return nullptr;
}

const ClassDef* Module::find_class(std::string_view name) const
{
  const ClassDef* found = nullptr;
  for (const auto& c : classes) {
    if (c.name == name && (found == nullptr || c.depth < found->depth)) {
      found = &c;
    }
  }
  return found;
}

const FunctionDef* Module::find_function(std::string_view name) const
{
  for (const auto& f : functions) {
    if (f.name == name) {
      return &f;
    }
  }
  return nullptr;
}

Module scan_module(std::string_view source, const std::string& path)
{
  Module m;
  m.path = path;
  try {
    const auto tokens = tokenize(source);
    Scanner(tokens, m).run();
  } catch (const SyntaxError& e) {
    throw Error(fmt::format("{}:{}: cannot read this Python source: {}", path, e.line(), e.what()));
  }
  return m;
}

Module read_module(const std::string& file_path, const std::string& path)
{
  return scan_module(util::read_file(file_path), path);
}

std::vector<std::string> markers_of(const Module& module, const FunctionDef& function)
{
  std::vector<std::string> marks;
  const std::string prefix = "pytest.mark.";
  for (const auto& d : function.decorators) {
    if (d.rfind(prefix, 0) == 0) {
      const auto name = d.substr(prefix.size());
      if (std::find(k_pytest_marks.begin(), k_pytest_marks.end(), name) == k_pytest_marks.end()) {
        marks.push_back(name);
      }
    }
  }
  for (const auto& name : module.module_marks) {
    if (std::find(k_pytest_marks.begin(), k_pytest_marks.end(), name) == k_pytest_marks.end()) {
      marks.push_back(name);
    }
  }
  return marks;
}

} // namespace zl::shapes
