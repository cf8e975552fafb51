// The benchmark class chain, recovered from source: the class a constructor call names (in the
// test module itself, or in benchmark/base.py through `base.X` or an import), then its bases
// from the same module, then from base.py, recursively, in Python's method resolution order.
// FlagGems' set_shapes walks type(self).__mro__; this is that walk before any object exists.
#pragma once

#include "shapes/py_module.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zl::shapes {

struct ChainLink
{
  std::string name;
  std::string where; // "benchmark/base.py:672"; empty when the class was not found in either module
};

// (A class imported from a sibling test module, `from .test_x import XBenchmark`, is read from
// that module when the benchmark folder is known.)

// One constructor call of a benchmark class and the chain of that class.
struct Construction
{
  Call call;
  std::string module_path;            // where the call is
  std::optional<std::string> op_name; // the op_name keyword (or first positional) when a literal
  std::string op_name_text;           // its source text either way
  std::vector<ChainLink> chain;       // the MRO, the class itself first, object last
  std::vector<std::string> markers;   // markers of the test function the call is in
};

class ClassChains
{
public:
  // benchmark_dir: the folder holding the test modules, to read sibling modules from; empty:
  // only the two modules given are known.
  ClassChains(Module test_module, Module base_module, std::string benchmark_dir = "");

  // Every call in the test module to a class of the test module or of base.py that gives an
  // op_name (keyword, or the first positional argument of a class whose chain reaches
  // base.py's Benchmark).
  std::vector<Construction> constructions() const;

  // The MRO of the class `dotted` names in `module` (the test module or base.py); nullopt when
  // it names a class of neither.
  std::optional<std::vector<ChainLink>> chain(const std::string& dotted, const Module& module) const;

  const Module& test_module() const { return m_test; }
  const Module& base_module() const { return m_base; }
  // The helper module's name: "base" (FlagGems v5.3.0 on), "performance_utils" (v3.0 to v5.0.2).
  std::string base_name() const;

private:
  struct ClassRef
  {
    const Module* module = nullptr; // null: a base named in source but defined elsewhere
    const ClassDef* def = nullptr;
    std::string name;
    std::string id() const { return (module != nullptr ? module->path : "?") + ":" + name; }
  };

  std::optional<ClassRef> resolve(const std::string& dotted, const Module& from) const;
  bool names_base_module(const std::string& dotted, const Module& from) const;
  std::vector<ClassRef> linearize(const ClassRef& cls, int depth) const;
  const Module* sibling(const std::string& import_module) const;

  Module m_test;
  Module m_base;
  std::string m_dir;
  mutable std::map<std::string, std::unique_ptr<Module>> m_siblings; // read on first use; null: none
};

} // namespace zl::shapes
