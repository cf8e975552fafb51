#include "loader/search_path.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <climits>
#include <cstdlib>

namespace zl::loader {

namespace fs = boost::filesystem;

std::string binary_prefix()
{
  boost::system::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().parent_path().string();
}

std::vector<SearchDir> search_dirs(const std::vector<std::string>& cli_paths)
{
  std::vector<SearchDir> dirs;
  auto add = [&](const std::string& given, const std::string& origin, bool required) {
    // realpath, not fs::canonical: Boost's asks for the working folder even for an absolute path.
    const auto path = util::absolute(given);
    char resolved[PATH_MAX];
    boost::system::error_code ec;
    if (!fs::is_directory(path, ec) || ::realpath(path.c_str(), resolved) == nullptr) {
      if (required) {
        throw Error(fmt::format("backend folder {} (from {}) is not a folder that exists; fix the path or drop it",
                                util::printable(given), origin));
      }
      return;
    }
    const std::string canonical = resolved;
    for (const auto& d : dirs) {
      if (d.path == canonical) {
        return;
      }
    }
    dirs.push_back({canonical, origin});
  };
  for (const auto& p : cli_paths) {
    add(p, "--backend-path", true);
  }
  if (const char* env = std::getenv("ZL_BACKEND_PATH")) {
    for (const auto& p : util::split(env, ':')) {
      add(p, "ZL_BACKEND_PATH", true);
    }
  }
  // The build tree is laid out like an install, so one rule serves both; only the label differs.
  const auto prefix = binary_prefix();
  if (!prefix.empty()) {
    boost::system::error_code ec;
    const bool in_build_tree = fs::equivalent(prefix, ZL_BUILD_ROOT, ec);
    add(prefix + "/lib/zl/backends", in_build_tree ? "build tree" : "install", false);
  }
  return dirs;
}

std::string describe(const std::vector<SearchDir>& dirs)
{
  if (dirs.empty()) {
    return "no folder (none of --backend-path, ZL_BACKEND_PATH, the install's lib/zl/backends exists)";
  }
  std::vector<std::string> parts;
  for (const auto& d : dirs) {
    parts.push_back(fmt::format("{} ({})", d.path, d.origin));
  }
  return util::join(parts, ", ");
}

} // namespace zl::loader
