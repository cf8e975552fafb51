// Every module found in the search folders, and the choice of one.
#pragma once

#include "loader/module.hpp"
#include "loader/search_path.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::loader {

struct Selection
{
  const Module* module = nullptr;
  std::string how; // "--backend", "ZL_BACKEND", or why it was chosen automatically
};

class Registry
{
public:
  // Loads every libzl_backend_*.so in dirs. The first file of a given name wins; later ones are
  // recorded as shadowed. Two loaded modules claiming one name or alias both fail.
  static Registry discover(std::vector<SearchDir> dirs);

  const std::vector<Module>& modules() const { return m_modules; }
  const std::vector<SearchDir>& dirs() const { return m_dirs; }

  // The module answering to name (a name or an alias). Throws Error (exit 2) naming the file
  // and the folders searched when it is unknown, invalid, failed or ambiguous.
  const Module& find(const std::string& name, const std::string& requested_from) const;

  // --backend/ZL_BACKEND when given (requested_from names which), else the single backend that
  // finds devices, else the host fallback. Throws Error when no single answer exists.
  Selection select(const std::optional<std::string>& requested, const std::string& requested_from) const;

private:
  std::vector<SearchDir> m_dirs;
  std::vector<Module> m_modules;
};

} // namespace zl::loader
