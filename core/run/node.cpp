#include "run/node.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"

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

bool marks(const std::string& text, const std::string& op)
{
  return std::regex_search(text, std::regex("@pytest\\.mark\\." + op + "\\b"));
}

bool names(const std::string& text, const std::string& op)
{
  return std::regex_search(text, std::regex("op_name\\s*=\\s*[\"']" + op + "[\"']"));
}

} // namespace

Node resolve_node(const std::string& flaggems_dir, const std::string& op, const std::string& op_file,
                  const std::string& test_node)
{
  Node n;
  if (!test_node.empty()) {
    n.node = test_node;
    n.file = test_node.substr(0, test_node.find("::"));
    const auto sep = test_node.rfind("::");
    auto function = sep == std::string::npos ? std::string() : test_node.substr(sep + 2);
    function = function.substr(0, function.find('['));
    n.op = function.empty() ? op_of_file(n.file) : (function.rfind("test_", 0) == 0 ? function.substr(5) : function);
    n.how = "--test-node, as given";
    return n;
  }
  if (!op_file.empty()) {
    const fs::path p(op_file);
    n.file = p.is_absolute() ? fs::relative(p, flaggems_dir).string() : op_file;
    n.node = n.file;
    n.op = op_of_file(n.file);
    n.how = "--op-file, as given";
    return n;
  }
  n.op = op;
  const std::string direct = "benchmark/test_" + op + ".py";
  if (fs::exists(fs::path(flaggems_dir) / direct)) {
    n.file = direct;
    n.how = fmt::format("{} exists", direct);
  } else {
    for (const auto& file : benchmark_modules(flaggems_dir)) {
      const auto text = read_text((fs::path(flaggems_dir) / file).string());
      if (marks(text, op) || names(text, op)) {
        n.file = file;
        n.how = fmt::format("no {}; {} {} it", direct, file, marks(text, op) ? "marks" : "names");
        break;
      }
    }
  }
  if (n.file.empty()) {
    n.file = direct;
    n.how = fmt::format("no {} and no module marks or names '{}'", direct, op);
  }
  n.node = n.file;
  // Select the op's own tests when its marker is there; otherwise the whole module runs.
  if (marks(read_text((fs::path(flaggems_dir) / n.file).string()), op)) {
    n.marker = op;
  }
  return n;
}

} // namespace zl::run
