#include "shapes/class_chain.hpp"

#include "util/error.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace zl::shapes {

namespace fs = boost::filesystem;

namespace {

std::string last_component(const std::string& dotted)
{
  const auto dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// C3: the merge of the bases' linearizations and the bases themselves. Empty on an
// inconsistent hierarchy (Python raises TypeError there; the caller falls back).
template <typename T, typename Id>
std::optional<std::vector<T>> c3_merge(std::vector<std::vector<T>> seqs, Id id)
{
  std::vector<T> out;
  for (;;) {
    seqs.erase(std::remove_if(seqs.begin(), seqs.end(), [](const auto& s) { return s.empty(); }), seqs.end());
    if (seqs.empty()) {
      return out;
    }
    const T* head = nullptr;
    for (const auto& s : seqs) {
      const auto candidate = id(s.front());
      const bool in_tail = std::any_of(seqs.begin(), seqs.end(), [&](const auto& other) {
        return std::any_of(other.begin() + 1, other.end(), [&](const T& x) { return id(x) == candidate; });
      });
      if (!in_tail) {
        head = &s.front();
        break;
      }
    }
    if (head == nullptr) {
      return std::nullopt;
    }
    const T chosen = *head;
    out.push_back(chosen);
    for (auto& s : seqs) {
      if (!s.empty() && id(s.front()) == id(chosen)) {
        s.erase(s.begin());
      }
    }
  }
}

} // namespace

ClassChains::ClassChains(Module test_module, Module base_module, std::string benchmark_dir)
  : m_test(std::move(test_module)), m_base(std::move(base_module)), m_dir(std::move(benchmark_dir))
{}

std::string ClassChains::base_name() const
{
  const auto stem = fs::path(m_base.path).stem().string();
  return stem.empty() ? "base" : stem;
}

const Module* ClassChains::sibling(const std::string& import_module) const
{
  const auto name = last_component(import_module);
  if (m_dir.empty() || name.empty() || name == base_name()) {
    return nullptr;
  }
  auto& slot = m_siblings[name];
  const auto file = m_dir + "/" + name + ".py";
  if (!slot && fs::is_regular_file(file)) {
    slot = std::make_unique<Module>(read_module(file, "benchmark/" + name + ".py"));
  }
  return slot.get();
}

bool ClassChains::names_base_module(const std::string& dotted, const Module& from) const
{
  if (&from == &m_base) {
    return false;
  }
  for (const auto& imp : from.imports) {
    if (imp.local != dotted && !(imp.name.empty() && imp.module == dotted)) {
      continue;
    }
    // from . import base / from benchmark import base; import benchmark.base [as base]
    if ((!imp.name.empty() && imp.name == base_name()) ||
        (imp.name.empty() && last_component(imp.module) == base_name())) {
      return true;
    }
  }
  return dotted == base_name(); // the benchmark folder's convention, even without a visible import
}

std::optional<ClassChains::ClassRef> ClassChains::resolve(const std::string& dotted, const Module& from) const
{
  const auto dot = dotted.rfind('.');
  const auto name = last_component(dotted);
  if (dot != std::string::npos) {
    if (names_base_module(dotted.substr(0, dot), from)) {
      if (const auto* def = m_base.find_class(name)) {
        return ClassRef{&m_base, def, name};
      }
    }
    return std::nullopt;
  }
  if (const auto* def = from.find_class(name)) {
    return ClassRef{&from, def, name};
  }
  for (const auto& imp : from.imports) {
    const bool from_base = last_component(imp.module) == base_name() || imp.module == "." + base_name();
    if (!from_base || imp.name.empty()) {
      continue;
    }
    // from .base import BlasBenchmark [as Blas]; from benchmark.base import *
    const auto wanted = imp.name == "*" ? name : imp.local == name ? imp.name : std::string();
    if (const auto* def = wanted.empty() ? nullptr : m_base.find_class(wanted)) {
      return ClassRef{&m_base, def, wanted};
    }
  }
  for (const auto& imp : from.imports) { // from .test_bitwise_left_shift import BitwiseLeftShiftBenchmark
    if (imp.local == name && !imp.name.empty() && imp.name != "*") {
      const auto* module = sibling(imp.module);
      if (const auto* def = module != nullptr ? module->find_class(imp.name) : nullptr) {
        return ClassRef{module, def, imp.name};
      }
    }
  }
  return std::nullopt;
}

std::vector<ClassChains::ClassRef> ClassChains::linearize(const ClassRef& cls, int depth) const
{
  if (depth > 64) {
    throw Error(fmt::format("the bases of class {} in {} go round in a circle", cls.name,
                            cls.module != nullptr ? cls.module->path : "?"));
  }
  if (cls.def == nullptr) {
    return {cls};
  }
  std::vector<ClassRef> bases;
  for (const auto& text : cls.def->bases) {
    if (text == "object") {
      continue;
    }
    auto ref = resolve(text, *cls.module);
    // A base defined elsewhere (a mixin of another module) still has a name a key may use.
    bases.push_back(ref ? *ref : ClassRef{nullptr, nullptr, last_component(text.substr(0, text.find_first_of("[(")))});
  }
  std::vector<std::vector<ClassRef>> seqs;
  for (const auto& b : bases) {
    seqs.push_back(linearize(b, depth + 1));
  }
  seqs.push_back(bases);
  auto merged = c3_merge(seqs, [](const ClassRef& r) { return r.id(); });
  std::vector<ClassRef> out{cls};
  if (!merged) { // inconsistent order: depth first, first seen wins (Python would refuse the class)
    merged.emplace();
    for (size_t i = 0; i + 1 < seqs.size(); ++i) {
      for (const auto& r : seqs[i]) {
        if (std::none_of(merged->begin(), merged->end(), [&](const ClassRef& x) { return x.id() == r.id(); })) {
          merged->push_back(r);
        }
      }
    }
  }
  out.insert(out.end(), merged->begin(), merged->end());
  return out;
}

std::optional<std::vector<ChainLink>> ClassChains::chain(const std::string& dotted, const Module& module) const
{
  const auto ref = resolve(dotted, module);
  if (!ref) {
    return std::nullopt;
  }
  std::vector<ChainLink> links;
  for (const auto& r : linearize(*ref, 0)) {
    links.push_back({r.name, r.def != nullptr ? fmt::format("{}:{}", r.module->path, r.def->line) : ""});
  }
  links.push_back({"object", ""});
  return links;
}

std::vector<Construction> ClassChains::constructions() const
{
  std::vector<Construction> out;
  for (const auto& call : m_test.calls) {
    auto links = chain(call.callee, m_test);
    if (!links) {
      continue;
    }
    Construction c{call, m_test.path, std::nullopt, "", std::move(*links), {}};
    const Argument* op = call.keyword("op_name");
    // Benchmark.__init__(self, op_name, torch_op, …): a first positional argument is op_name
    const bool benchmark = std::any_of(c.chain.begin(), c.chain.end(), [&](const ChainLink& l) {
      return l.name == "Benchmark" && l.where.rfind(m_base.path + ":", 0) == 0;
    });
    if (op == nullptr && benchmark && !call.args.empty() && call.args.front().keyword.empty()) {
      op = &call.args.front();
    }
    if (op == nullptr) {
      continue;
    }
    c.op_name = op->literal;
    c.op_name_text = op->text;
    if (const auto* fn = m_test.find_function(call.function)) {
      c.markers = markers_of(m_test, *fn);
    }
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace zl::shapes
