#include "run/node.hpp"

#include "run/catalog.hpp"
#include "run/release.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

namespace zl::run {

namespace fs = boost::filesystem;

namespace {

std::string op_of_file(const std::string& file)
{
  auto stem = fs::path(file).stem().string();
  return stem.rfind("test_", 0) == 0 ? stem.substr(5) : stem;
}

// The benchmark modules, sorted, relative to the FlagGems folder.
std::vector<std::string> benchmark_modules(const std::string& flaggems_dir)
{
  std::vector<std::string> files;
  boost::system::error_code ec;
  const fs::path root = fs::path(flaggems_dir) / "benchmark";
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (fs::is_regular_file(it->path()) && name.rfind("test_", 0) == 0 && it->path().extension() == ".py") {
      files.push_back(fs::relative(it->path(), flaggems_dir).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const std::string& path)
{
  try {
    return util::read_file(path);
  } catch (const Error&) {
    return {}; // unreadable, not a regular file, or too large: not a benchmark file
  }
}

// Written out: `@pytest.mark.<op>`, `marks=pytest.mark.<op>`, `pytestmark = pytest.mark.<op>`.
bool marks(const std::string& text, const std::string& op)
{
  const auto found = written_marks(text);
  return std::find(found.begin(), found.end(), op) != found.end();
}

bool names(const std::string& text, const std::string& op)
{
  return std::regex_search(text, std::regex("op_name\\s*=\\s*[\"']" + op + "[\"']"));
}

bool contains(const std::vector<std::string>& list, const std::string& s)
{
  return std::find(list.begin(), list.end(), s) != list.end();
}

// What the collection could not import, for a message: "" when it imported everything.
std::string import_errors(const Catalog& c)
{
  return c.errors.empty() ? std::string() : "; it could not import " + util::join(c.errors, "; ");
}

// The pair --op-file and --op: that op inside that file, selected by its marker where the file
// has one. pytest's collection decides for a file whose marks static reading cannot be sure of.
void resolve_in_file(Node& n, const std::string& flaggems_dir, const std::string& op, const std::string& python)
{
  n.op = op;
  const auto text = read_text((fs::path(flaggems_dir) / n.file).string());
  bool marked = marks(text, op);
  bool decided = false; // pytest's collection read the file: its items decide, names do not
  std::string collected;
  if (!python.empty() &&
      (text.find("getattr(pytest.mark") != std::string::npos || layout_of(flaggems_dir) == Layout::category)) {
    auto c = read_catalog(flaggems_dir);
    if (contains(c.uncertain, n.file)) {
      collect_uncertain(c, flaggems_dir, python);
      collected = "; " + c.collection + import_errors(c);
      marked = c.collected ? contains(files_marking(c, op), n.file) : marked;
      decided = c.collected;
    }
  }
  if (marked) {
    n.marker = op;
    n.how = fmt::format("--op with --op-file: {} marks it{}", n.file, collected);
  } else if (!decided && names(text, op)) {
    n.how = fmt::format("--op with --op-file: {} names it (no marker: the whole module runs)", n.file);
  } else {
    n.how = fmt::format("--op with --op-file: {} neither marks nor names it{}", n.file, collected);
    if (n.problem.empty() && fs::is_regular_file(fs::path(flaggems_dir) / n.file)) {
      n.problem = decided ? fmt::format("pytest's collection finds no test in {} marked {} ({}); give the file "
                                        "that holds it, or --op alone",
                                        n.file, op, collected.substr(2))
                          : fmt::format("the benchmark file {} neither marks nor names op '{}' (no test marked {}, "
                                        "no op_name=\"{}\"); give the file that holds it, or --op alone",
                                        n.file, op, op, op);
    }
  }
}

// No benchmark/test_<op>.py: the first file that marks op (written out, else as pytest's
// collection finds where static reading is not sure), else the first that names it.
void find_op_file(Node& n, const std::string& flaggems_dir, const std::string& direct, const std::string& python)
{
  auto c = read_catalog(flaggems_dir);
  std::string via;
  const auto& seen = files_marking(c, n.op);
  const bool unsure =
      seen.empty() || std::any_of(seen.begin(), seen.end(), [&](const auto& f) { return contains(c.uncertain, f); });
  if (unsure && !c.uncertain.empty() && !python.empty()) {
    collect_uncertain(c, flaggems_dir, python);
    via = " (" + c.collection + ")";
  }
  if (const auto& files = files_marking(c, n.op); !files.empty()) {
    n.file = files.front();
    n.marker = n.op;
    n.how = fmt::format("no {}; {} marks it{}", direct, n.file, via);
    if (files.size() > 1) {
      n.how += fmt::format("; also marked in {}: the first runs", util::join({files.begin() + 1, files.end()}, ", "));
    }
    return;
  }
  std::string named; // a file the collection read that names op in no test it collected
  for (const auto& file : benchmark_modules(flaggems_dir)) {
    if (names(read_text((fs::path(flaggems_dir) / file).string()), n.op)) {
      if (c.collected && contains(c.uncertain, file)) {
        named = file; // running the whole category file would run other ops under this one's name
        continue;
      }
      n.file = file;
      n.how = fmt::format("no {}; {} names it (no marker: the whole module runs)", direct, file);
      return;
    }
  }
  n.file = direct;
  n.how = fmt::format("no {} and no module marks or names '{}'{}", direct, n.op, via);
  if (!named.empty()) {
    n.problem = fmt::format("{} names op '{}' (op_name=\"{}\"), but pytest's collection finds no test of it marked "
                            "{} (a function pytest does not collect, e.g. v5.0.2's 'def tes_rms_norm'): this "
                            "release has no test of it that pytest runs",
                            named, n.op, n.op, n.op);
  } else if (!c.uncertain.empty() && !c.collected) {
    n.problem = fmt::format("no benchmark file marks or names op '{}' as far as zl can read, and {} compute their "
                            "marks, which only pytest's collection can tell: {}",
                            n.op, util::join(c.uncertain, ", "),
                            python.empty() ? "no interpreter was given to run it" : c.collection);
  } else if (!c.errors.empty()) {
    n.problem = fmt::format("no benchmark file that pytest's collection imported marks or names op '{}'{}: fix that "
                            "file, or give the op's file with --op-file",
                            n.op, import_errors(c));
  }
}

// A node's file relative to the FlagGems folder; empty when an absolute one lies outside it.
std::string inside_flaggems(const std::string& file, const std::string& flaggems_dir)
{
  const fs::path p(file);
  if (!p.is_absolute()) {
    return file;
  }
  boost::system::error_code ec;
  const auto root = fs::weakly_canonical(fs::absolute(flaggems_dir), ec);
  const auto full = fs::weakly_canonical(p, ec);
  const auto rel = full.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") {
    return "";
  }
  return rel.string();
}

std::string outside_problem(const std::string& option, const std::string& file, const std::string& flaggems_dir)
{
  return fmt::format("{} {} lies outside the FlagGems folder {}: pytest runs FlagGems' benchmark conftest only for "
                     "modules inside it; give a path inside it (absolute or relative to it)",
                     option, file, flaggems_dir);
}

using F = NodeField;
using util::JsonWriter;

const util::Field<Node, NodeField> k_fields[] = {
    {F::op, "op", [](JsonWriter& j, const Node& n) { j.value(n.op); }},
    {F::node, "node", [](JsonWriter& j, const Node& n) { j.value(n.node); }},
    {F::marker, "marker", [](JsonWriter& j, const Node& n) { j.nullable_value(n.marker); }},
    {F::resolution, "resolution", [](JsonWriter& j, const Node& n) { j.value(n.how); }},
};

} // namespace

Node resolve_node(const std::string& flaggems_dir, const std::string& op, const std::string& op_file,
                  const std::string& test_node, const std::string& python)
{
  Node n;
  if (!test_node.empty()) {
    const auto sep = test_node.find("::");
    const auto given_file = test_node.substr(0, sep);
    n.file = inside_flaggems(given_file, flaggems_dir);
    if (n.file.empty()) {
      n.file = given_file;
      n.problem = outside_problem("--test-node", given_file, flaggems_dir);
    }
    n.node = n.file + (sep == std::string::npos ? std::string() : test_node.substr(sep));
    const auto last = test_node.rfind("::");
    auto function = last == std::string::npos ? std::string() : test_node.substr(last + 2);
    function = function.substr(0, function.find('['));
    n.op = function.empty() ? op_of_file(n.file) : (function.rfind("test_", 0) == 0 ? function.substr(5) : function);
    n.how = n.file == given_file ? "--test-node, as given" : "--test-node, made relative to the FlagGems folder";
    return n;
  }
  if (!op_file.empty()) {
    n.file = inside_flaggems(op_file, flaggems_dir);
    if (n.file.empty()) {
      n.file = op_file;
      n.problem = outside_problem("--op-file", op_file, flaggems_dir);
    }
    n.node = n.file;
    if (op.empty()) {
      n.op = op_of_file(n.file);
      n.how = "--op-file, as given";
      return n;
    }
    resolve_in_file(n, flaggems_dir, op, python);
    return n;
  }
  n.op = op;
  const std::string direct = "benchmark/test_" + op + ".py";
  if (fs::exists(fs::path(flaggems_dir) / direct)) {
    n.file = direct;
    n.how = fmt::format("{} exists", direct);
    // Select the op's own tests when its marker is there; otherwise the whole module runs.
    if (marks(read_text((fs::path(flaggems_dir) / n.file).string()), op)) {
      n.marker = op;
    }
  } else {
    find_op_file(n, flaggems_dir, direct, python);
  }
  n.node = n.file;
  return n;
}

void to_json(JsonWriter& j, const Node& node, std::initializer_list<util::Pick<NodeField>> fields)
{
  util::write_fields(j, k_fields, node, fields);
}

} // namespace zl::run
