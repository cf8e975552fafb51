// Where backend modules are looked for, in order.
#pragma once

#include <string>
#include <vector>

namespace zl::loader {

struct SearchDir
{
  std::string path;
  std::string origin; // "--backend-path", "ZL_BACKEND_PATH", "install", "build tree"
};

// --backend-path folders, then ZL_BACKEND_PATH (colon list), then <prefix>/lib/zl/backends of the
// running binary: the install, or the build tree, which has the same layout. A folder the user
// named that does not exist is an error; the last is skipped when absent. Duplicates keep their
// first place.
std::vector<SearchDir> search_dirs(const std::vector<std::string>& cli_paths);

// The install prefix of the running binary: the parent of the folder holding it.
std::string binary_prefix();

// "a (--backend-path), b (install)", for error messages.
std::string describe(const std::vector<SearchDir>& dirs);

} // namespace zl::loader
