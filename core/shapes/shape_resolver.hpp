// Which shapes an op will run, found the way FlagGems' set_shapes finds them, before pytest
// starts: the op name as a key of the shape file first, then each class of the benchmark's
// chain in MRO order. BLAS ops keep their shapes under a class key (core_shapes.yaml has
// BlasBenchmark, not mm), so a lookup by op name alone finds nothing for them.
//
// What no static reading sees: --level comprehensive adds each class's set_more_shapes(),
// which is Python; a key without a shapes list falls back to the class's DEFAULT_SHAPES.
#pragma once

#include "shapes/class_chain.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace zl::shapes {

// One benchmark class the op is constructed with, and the key its lookup ends at.
struct Target
{
  std::vector<Construction> calls;     // the constructor calls (several calls of one class: one target)
  std::vector<std::string> candidates; // the keys tried, in order: the op name, then the chain
  std::string key;                     // the first candidate the shape file has; empty: a miss
  YAML::Node entry;                    // that key's entry (merge keys `<<` applied)
  std::vector<std::string> shapes;     // each shape as flow YAML: "[2, 384, 384, 384]"
  std::string shape_desc;
  bool certain = true; // false when op_name is not a literal where the class is constructed
  std::string problem; // why a found key still gives no shapes, when it does not
};

struct Resolution
{
  std::string op;
  std::string module;     // the test module, relative to the FlagGems folder
  std::string shape_file; // absolute
  std::vector<Target> targets;
  std::vector<std::string> notes; // what a reader should know (uncertain op_name, other forms)

  // Every target found a key with a shapes list.
  bool complete() const;
  // Every candidate tried, across targets, without repeats.
  std::vector<std::string> tried() const;
  // The keys found, without repeats.
  std::vector<std::string> keys() const;
};

struct ResolveInput
{
  std::string flaggems_dir;
  std::string module; // benchmark/test_<op>.py, relative to flaggems_dir
  std::string op;
  std::string shape_file; // empty: <flaggems_dir>/benchmark/core_shapes.yaml
};

// Reads the module, benchmark/base.py and the shape file. Throws zl::Error when a file cannot
// be read or parsed; a miss is not an error (see complete()).
Resolution resolve_shapes(const ResolveInput& in);

// resolve_shapes in its two halves, for a caller that tries several shape files against one
// module: the Python half (the targets and the keys each would try, shape_file named, nothing
// looked up) and the YAML half (each target's key, entry and shapes from r.shape_file).
Resolution find_targets(const ResolveInput& in);
void look_up_shapes(Resolution& r);

// The entry of `key` in the shape file's root, with `<<` merge keys applied (yaml-cpp keeps
// them as plain keys; PyYAML merges them). Undefined when the key is absent. Throws zl::Error
// when a merged mapping has a key that is a list or a mapping.
YAML::Node lookup_entry(const YAML::Node& root, const std::string& key);

// Loads a shape file; throws zl::Error naming it when it is not a YAML mapping or one of its keys
// is a list or a mapping.
YAML::Node load_shape_file(const std::string& path);

// A node as one line of flow YAML.
std::string flow_text(const YAML::Node& node);

} // namespace zl::shapes
