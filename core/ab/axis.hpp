// Is a compiler switch live? A switch no code reads runs every round and shows no difference,
// so `zl ab` looks for its name in the installed compiler before spending rounds on it.
#pragma once

#include <string>
#include <vector>

namespace zl::ab {

struct AxisProbe
{
  bool live = false;
  std::string found_in;              // the first file that names the variable
  std::vector<std::string> searched; // the package folders searched
  size_t files_scanned = 0;
};

// The default axis for a backend's FlagTree token: FLAGTREE_<TOKEN>_RLC_ENHANCE, or the generic
// FLAGTREE_RLC_ENHANCE where the backend has none (NVIDIA and AMD builds read that one).
std::string default_axis(const std::string& flagtree_token);

// Searches the Python files and shared objects of the triton and flagtree packages that python
// would import for the variable's name.
AxisProbe probe_axis(const std::string& python, const std::string& variable);

// Whether the file's bytes contain needle (streamed, so large shared objects cost no memory).
bool file_contains(const std::string& path, const std::string& needle);

} // namespace zl::ab
