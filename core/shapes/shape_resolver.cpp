#include "shapes/shape_resolver.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace zl::shapes {

namespace fs = boost::filesystem;

namespace {

// The keys an op's own name may have: FlagGems v3.0 names a backward benchmark "<op> backward"
// (a space: `self.op_name += " backward"`) and looks its shapes up by that name.
std::vector<std::string> op_keys(const std::string& op)
{
  const std::string suffix = "_backward";
  if (op.size() > suffix.size() && op.compare(op.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return {op, op.substr(0, op.size() - suffix.size()) + " backward"};
  }
  return {op};
}

void add_unique(std::vector<std::string>& out, const std::string& value)
{
  if (std::find(out.begin(), out.end(), value) == out.end()) {
    out.push_back(value);
  }
}

// A key that is a list or a mapping: zl names keys by their text, and PyYAML's safe_load (which
// FlagGems reads the file with) refuses such a key ("found unhashable key").
std::optional<std::string> complex_key(const YAML::Node& key)
{
  if (!key.IsSequence() && !key.IsMap()) {
    return std::nullopt;
  }
  const auto mark = key.Mark();
  return fmt::format("the key at line {}, column {} is a {}, which PyYAML refuses as a mapping key (found unhashable "
                     "key); write the key as a plain string",
                     mark.line + 1, mark.column + 1, key.IsSequence() ? "list" : "mapping");
}

std::vector<std::string> chain_names(const Construction& c)
{
  std::vector<std::string> names;
  for (const auto& link : c.chain) {
    names.push_back(link.name);
  }
  return names;
}

// The constructions the op is made with: those whose op_name is the op; when none says so
// literally, those whose op_name is an expression (a helper's parameter, a parametrized
// name), marked uncertain.
std::vector<Target> group_targets(const std::vector<Construction>& all, const std::string& op,
                                  std::vector<std::string>& notes)
{
  std::vector<const Construction*> chosen;
  for (const auto& c : all) {
    if (c.op_name && *c.op_name == op) {
      chosen.push_back(&c);
    }
  }
  const bool certain = !chosen.empty();
  if (!certain) {
    for (const auto& c : all) {
      if (!c.op_name) {
        chosen.push_back(&c);
        notes.push_back(fmt::format("{}:{}: {}(op_name={}) does not name its op literally; its class chain is a "
                                    "guess for {}",
                                    c.module_path, c.call.line, c.call.callee, c.op_name_text, op));
      }
    }
  }
  std::vector<Target> targets;
  for (const auto* c : chosen) {
    auto names = chain_names(*c);
    auto same = std::find_if(targets.begin(), targets.end(),
                             [&](const Target& t) { return chain_names(t.calls.front()) == names; });
    if (same != targets.end()) {
      same->calls.push_back(*c);
      continue;
    }
    Target t;
    t.calls.push_back(*c);
    t.candidates = op_keys(op);
    for (const auto& n : names) {
      add_unique(t.candidates, n);
    }
    t.certain = certain;
    targets.push_back(std::move(t));
  }
  return targets;
}

} // namespace

bool Resolution::complete() const
{
  return !targets.empty() && std::all_of(targets.begin(), targets.end(),
                                         [](const Target& t) { return !t.key.empty() && t.problem.empty(); });
}

std::vector<std::string> Resolution::tried() const
{
  std::vector<std::string> out;
  for (const auto& t : targets) {
    for (const auto& c : t.candidates) {
      add_unique(out, c);
    }
  }
  return out;
}

std::vector<std::string> Resolution::keys() const
{
  std::vector<std::string> out;
  for (const auto& t : targets) {
    if (!t.key.empty()) {
      add_unique(out, t.key);
    }
  }
  return out;
}

std::string flow_text(const YAML::Node& node)
{
  YAML::Emitter e;
  e.SetSeqFormat(YAML::Flow);
  e.SetMapFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

YAML::Node load_shape_file(const std::string& path)
{
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("the shape file {} is not valid YAML: {}", path, e.what()));
  }
  if (!root.IsMap()) {
    throw Error(fmt::format("the shape file {} is not a mapping of keys to {{shapes: …}}", path));
  }
  for (const auto& kv : root) {
    if (const auto problem = complex_key(kv.first)) {
      throw Error(fmt::format("the shape file {}: {}", path, *problem));
    }
  }
  return root;
}

YAML::Node lookup_entry(const YAML::Node& root, const std::string& key)
{
  const YAML::Node found = root[key];
  if (!found || !found.IsMap()) {
    return found;
  }
  YAML::Node entry = YAML::Clone(found);
  const YAML::Node merge = found["<<"];
  if (merge) {
    entry.remove("<<");
    std::vector<YAML::Node> sources;
    if (merge.IsSequence()) {
      for (const auto& src : merge) {
        sources.push_back(static_cast<const YAML::Node&>(src));
      }
    } else {
      sources.push_back(merge);
    }
    for (const auto& src : sources) { // explicit keys win, then earlier sources (PyYAML's order)
      if (!src.IsMap()) {
        continue;
      }
      for (const auto& kv : src) {
        if (const auto problem = complex_key(kv.first)) {
          throw Error(fmt::format("in the mapping merged into key {}: {}", key, *problem));
        }
        const auto name = kv.first.as<std::string>();
        if (!entry[name]) {
          entry[name] = YAML::Clone(kv.second);
        }
      }
    }
  }
  return entry;
}

Resolution find_targets(const ResolveInput& in)
{
  Resolution r;
  r.op = in.op;
  r.module = in.module;
  r.shape_file =
      util::absolute(in.shape_file.empty() ? in.flaggems_dir + "/benchmark/core_shapes.yaml" : in.shape_file);
  const fs::path root(in.flaggems_dir);
  auto test = read_module((root / in.module).string(), in.module);
  // The benchmark helpers: base.py from FlagGems v5.3.0 on, performance_utils.py before.
  const bool old_layout =
      !fs::exists(root / "benchmark" / "base.py") && fs::is_regular_file(root / "benchmark" / "performance_utils.py");
  Module base;
  base.path = old_layout ? "benchmark/performance_utils.py" : "benchmark/base.py";
  const auto base_file = root / base.path;
  if (fs::is_regular_file(base_file)) {
    base = read_module(base_file.string(), base.path);
  } else {
    r.notes.push_back(
        fmt::format("{} does not exist: only the test module's own classes are known", base_file.string()));
  }
  const ClassChains chains(std::move(test), std::move(base), (root / in.module).parent_path().string());
  const auto constructions = chains.constructions();
  r.targets = group_targets(constructions, in.op, r.notes);
  if (r.targets.empty()) {
    std::vector<std::string> others;
    for (const auto& c : constructions) {
      others.push_back(
          fmt::format("{} ({}, line {})", c.op_name.value_or(c.op_name_text), c.chain.front().name, c.call.line));
    }
    r.notes.push_back(others.empty()
                          ? fmt::format("{} constructs no benchmark class with an op_name; only the op name itself "
                                        "can be looked up",
                                        in.module)
                          : fmt::format("no constructor call in {} has op_name=\"{}\"; it constructs {}", in.module,
                                        in.op, util::join(others, ", ")));
    Target t;
    t.candidates = op_keys(in.op);
    t.certain = false;
    r.targets.push_back(std::move(t));
  }
  return r;
}

void look_up_shapes(Resolution& r)
{
  const auto yaml = load_shape_file(r.shape_file);
  for (auto& t : r.targets) {
    for (const auto& candidate : t.candidates) {
      // Constructed, not assigned: yaml-cpp's assignment throws on the undefined node of a miss.
      auto entry = [&] {
        try {
          return lookup_entry(yaml, candidate);
        } catch (const Error& e) {
          throw Error(fmt::format("the shape file {}: {}", r.shape_file, e.what()));
        }
      }();
      if (!entry) {
        continue;
      }
      t.key = candidate;
      t.entry = entry;
      const auto shapes = entry.IsMap() ? entry["shapes"] : YAML::Node();
      if (!shapes || !shapes.IsSequence()) {
        t.problem = fmt::format("key {} has no shapes list: FlagGems then uses the class's DEFAULT_SHAPES, which zl "
                                "does not read from Python",
                                candidate);
      } else {
        for (const auto& s : shapes) {
          t.shapes.push_back(flow_text(s));
        }
      }
      if (entry.IsMap() && entry["shape_desc"] && entry["shape_desc"].IsScalar()) {
        t.shape_desc = entry["shape_desc"].as<std::string>();
      }
      break;
    }
  }
}

Resolution resolve_shapes(const ResolveInput& in)
{
  auto r = find_targets(in);
  look_up_shapes(r);
  return r;
}

} // namespace zl::shapes
