// Which pytest node a run executes.
#pragma once

#include "util/fields.hpp"

#include <initializer_list>
#include <string>

namespace zl::run {

struct Node
{
  std::string node;    // as pytest gets it, relative to the FlagGems folder
  std::string file;    // the file half of node, relative to the FlagGems folder
  std::string marker;  // -m filter, empty for none
  std::string op;      // the operator, as FLAGGEMS_PERF_CURRENT_OP would name its first function
  std::string how;     // how it was resolved, for the plan
  std::string problem; // why the node cannot run although its file may exist; preflight reports it
};

// An op maps to benchmark/test_<op>.py, else to the module that marks it (@pytest.mark.<op>,
// marks=pytest.mark.<op>, or, with python given, a computed mark that pytest's collection finds:
// run/catalog.hpp) or names it (op_name="<op>"); an op file and a node are taken as given, an absolute one made
// relative to the FlagGems folder. An op with an op file selects that op inside that file, as
// the earlier harness's OP + OP_FILE did. A file that does not exist is returned all the same:
// preflight reports it, and `problem` when the file cannot be the node.
Node resolve_node(const std::string& flaggems_dir, const std::string& op, const std::string& op_file,
                  const std::string& test_node, const std::string& python = "");

enum class NodeField { op, node, marker, resolution };

// The one serializer of a node (plan.json, run_identity.json): the fields picked, in that order,
// as members of the JSON object being written. marker: null for none; resolution: `how`.
void to_json(util::JsonWriter& j, const Node& node, std::initializer_list<util::Pick<NodeField>> fields);

} // namespace zl::run
