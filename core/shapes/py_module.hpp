// What a benchmark module says about itself, read from its tokens: imports, classes and their
// bases, functions and their decorators, and every call to a dotted name with its arguments.
// Nothing is evaluated; a value that is not a plain string literal is kept as its source text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::shapes {

struct Import
{
  std::string local;  // the name bound in the module
  std::string module; // `from M import …`: M as written, dots included ("." "..base" "benchmark")
  std::string name;   // the imported name; empty for `import M` / `import M as x`
  int line = 0;
};

struct ClassDef
{
  std::string name;
  std::vector<std::string> bases; // each as its source text: "base.GenericBenchmark2DOnly", "Benchmark"
  int line = 0;
  int depth = 0; // 0 at module level
};

struct FunctionDef
{
  std::string name;
  std::vector<std::string> decorators; // the dotted name of each: "pytest.mark.mm", "pytest.mark.parametrize"
  std::string cls;                     // the class it is defined in, if any
  int line = 0;
  int depth = 0;
};

struct Argument
{
  std::string keyword;                // empty for a positional argument ("*" / "**" for unpacking)
  std::string text;                   // the value's source text
  std::optional<std::string> literal; // the value when it is a string literal (or adjacent ones)
};

struct Call
{
  std::string callee; // a dotted name: "base.BlasBenchmark", "MmSelfTransposeBenchmark"
  std::vector<Argument> args;
  std::string function; // the innermost enclosing def, empty at module level
  int line = 0;

  const Argument* keyword(std::string_view name) const;
};

struct Module
{
  std::string path; // as given, for messages ("benchmark/test_mm.py")
  std::vector<Import> imports;
  std::vector<ClassDef> classes;
  std::vector<FunctionDef> functions;
  std::vector<Call> calls;
  std::vector<std::string> module_marks; // pytestmark = pytest.mark.X (or a list of them)

  const ClassDef* find_class(std::string_view name) const; // module-level first
  const FunctionDef* find_function(std::string_view name) const;
};

// Reads source. Throws zl::Error "<path>:<line>: …" when the tokenizer cannot follow it.
Module scan_module(std::string_view source, const std::string& path);

// Reads the file at file_path (named path in messages). Throws zl::Error.
Module read_module(const std::string& file_path, const std::string& path);

// The markers a function carries: decorators pytest.mark.<name> other than pytest's own
// (parametrize, skip, skipif, xfail, usefixtures, filterwarnings), and the module's marks.
std::vector<std::string> markers_of(const Module& module, const FunctionDef& function);

} // namespace zl::shapes
