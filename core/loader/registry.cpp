#include "loader/registry.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace zl::loader {

namespace fs = boost::filesystem;

namespace {

const std::string k_prefix = "libzl_backend_";
const std::string k_suffix = ".so";

std::vector<std::string> module_files(const std::string& dir)
{
  std::vector<std::string> files;
  boost::system::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.size() > k_prefix.size() + k_suffix.size() && name.compare(0, k_prefix.size(), k_prefix) == 0 &&
        name.compare(name.size() - k_suffix.size(), k_suffix.size(), k_suffix) == 0) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Marks both sides of every name or alias that two loaded modules claim.
void mark_conflicts(std::vector<Module>& modules)
{
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> claims;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (modules[i].state != ModuleState::loaded) {
      continue;
    }
    claims[modules[i].desc.name].push_back({i, "name"});
    for (const auto& alias : modules[i].aliases()) {
      claims[alias].push_back({i, "alias"});
    }
  }
  std::vector<std::string> conflicts(modules.size());
  for (const auto& [claimed, who] : claims) {
    for (const auto& [i, as] : who) {
      for (const auto& [j, other_as] : who) {
        if (i != j && conflicts[i].empty()) {
          conflicts[i] = fmt::format("claims '{}' as its {}, and so does {} (as its {}); two modules cannot answer "
                                     "to one name: remove one of them",
                                     claimed, as, modules[j].path, other_as);
        }
      }
    }
  }
  for (size_t i = 0; i < modules.size(); ++i) {
    if (!conflicts[i].empty()) {
      modules[i].state = ModuleState::failed;
      modules[i].error = fmt::format("{}: {}", modules[i].path, conflicts[i]);
    }
  }
}

std::string available(const std::vector<Module>& modules)
{
  std::vector<std::string> names;
  for (const auto& m : modules) {
    if (m.state == ModuleState::loaded) {
      const auto aliases = m.aliases();
      names.push_back(aliases.empty() ? m.name() : fmt::format("{} ({})", m.name(), util::join(aliases, ", ")));
    }
  }
  return names.empty() ? "none" : util::join(names, "; ");
}

} // namespace

Registry Registry::discover(std::vector<SearchDir> dirs)
{
  Registry registry;
  registry.m_dirs = std::move(dirs);
  std::map<std::string, std::string> seen; // file name -> first path
  for (const auto& dir : registry.m_dirs) {
    for (const auto& path : module_files(dir.path)) {
      const auto file = fs::path(path).filename().string();
      if (auto it = seen.find(file); it != seen.end()) {
        Module shadowed;
        shadowed.path = path;
        shadowed.folder_origin = dir.origin;
        shadowed.file_name = file.substr(k_prefix.size(), file.size() - k_prefix.size() - k_suffix.size());
        shadowed.state = ModuleState::shadowed;
        shadowed.error = fmt::format("{}: not loaded, shadowed by {} earlier in the search order", path, it->second);
        registry.m_modules.push_back(std::move(shadowed));
        continue;
      }
      seen.emplace(file, path);
      registry.m_modules.push_back(load_module(path, dir.origin));
    }
  }
  mark_conflicts(registry.m_modules);
  return registry;
}

const Module& Registry::find(const std::string& name, const std::string& requested_from) const
{
  const auto searched = describe(m_dirs);
  const auto shown = util::printable(name, 64); // what the user typed, safe to echo
  if (!util::is_identifier(name)) {
    throw Error(fmt::format("backend '{}' (from {}) is not a backend name: a name is [a-z0-9_]+, never a path; "
                            "to use a module in another folder, pass that folder with --backend-path",
                            shown, requested_from));
  }
  for (const auto& m : m_modules) {
    if (m.state == ModuleState::loaded) {
      const auto aliases = m.aliases();
      if (m.name() == name || std::find(aliases.begin(), aliases.end(), name) != aliases.end()) {
        return m;
      }
    }
  }
  // Not among the loaded ones: a module of that file name, or one claiming it, failed.
  for (const auto& m : m_modules) {
    if (m.state == ModuleState::failed) {
      const auto aliases = string_list(m.desc.aliases);
      const bool claims = m.desc.name != nullptr &&
                          (m.desc.name == name || std::find(aliases.begin(), aliases.end(), name) != aliases.end());
      if (m.file_name == name || claims) {
        throw Error(fmt::format("backend '{}' (from {}) cannot be used: {}\nsearched: {}", shown, requested_from,
                                m.error, searched));
      }
    }
  }
  std::string hint;
  for (const auto& m : m_modules) {
    if (m.state == ModuleState::loaded && util::edit_distance(m.name(), name) <= 2) {
      hint = fmt::format(" Did you mean '{}'?", m.name());
    }
  }
  throw Error(fmt::format("no backend named '{}' (from {}): no libzl_backend_{}.so and no module with that name or "
                          "alias.{}\navailable: {}\nsearched: {}",
                          shown, requested_from, shown, hint, available(m_modules), searched));
}

Selection Registry::select(const std::optional<std::string>& requested, const std::string& requested_from) const
{
  if (requested) {
    return {&find(*requested, requested_from), requested_from};
  }
  std::vector<std::pair<const Module*, Enumeration>> found;
  std::vector<std::string> why_none;
  const Module* fallback = nullptr;
  for (const auto& m : m_modules) {
    if (m.state != ModuleState::loaded) {
      continue;
    }
    if (m.has(ZL_CAP_HOST_FALLBACK)) {
      fallback = fallback == nullptr ? &m : fallback;
      continue;
    }
    auto e = m.enumerate();
    if (!e.devices.empty()) {
      found.emplace_back(&m, std::move(e));
    } else {
      why_none.push_back(fmt::format("{}: {}", m.name(), e.reason.empty() ? "no devices" : e.reason));
    }
  }
  if (found.size() == 1) {
    return {found[0].first, fmt::format("the only backend that found devices ({} via {})",
                                        found[0].second.devices.size(), found[0].second.source)};
  }
  if (found.size() > 1) {
    std::vector<std::string> list;
    for (const auto& [m, e] : found) {
      list.push_back(fmt::format("{} ({} devices)", m->name(), e.devices.size()));
    }
    throw Error(fmt::format("several backends found devices: {}; choose one with --backend NAME or ZL_BACKEND",
                            util::join(list, ", ")));
  }
  if (fallback == nullptr) {
    throw Error(fmt::format("no backend found devices and no host backend is installed ({})\nsearched: {}",
                            why_none.empty() ? "no modules" : util::join(why_none, "; "), describe(m_dirs)));
  }
  return {fallback, why_none.empty() ? std::string("no accelerator backend is installed")
                                     : "no accelerator backend found devices (" + util::join(why_none, "; ") + ")"};
}

} // namespace zl::loader
