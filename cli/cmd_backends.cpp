// zl backends: every module found, like `ompi_info` or `ucx_info -d`: a failed module is listed
// with its reason, never left out.
#include "output.hpp"

#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

std::string dash(const std::string& s)
{
  return s.empty() ? "-" : s;
}

void print_json(const loader::Registry& registry)
{
  util::JsonWriter json;
  auto& w = json.w();
  w.StartObject();
  json.field("abi", fmt::format("{}.{}", ZL_ABI_MAJOR, ZL_ABI_MINOR));
  json.key("search_path");
  w.StartArray();
  for (const auto& d : registry.dirs()) {
    w.StartObject();
    json.field("path", d.path);
    json.field("origin", d.origin);
    w.EndObject();
  }
  w.EndArray();
  json.key("backends");
  w.StartArray();
  for (const auto& m : registry.modules()) {
    const bool loaded = m.state == loader::ModuleState::loaded;
    w.StartObject();
    json.field("name", m.name());
    json.strings("aliases", m.aliases());
    json.field("state", loader::to_string(m.state));
    json.field("path", m.path);
    json.field("origin", m.folder_origin);
    json.field("version", loaded ? m.desc.version : "");
    json.field("abi", m.abi_version());
    json.field("description", loaded ? m.desc.description : "");
    json.strings("capabilities", loaded ? loader::capability_names(m.desc.capabilities) : std::vector<std::string>{});
    json.field("error", m.error);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::cout << json.text();
}

} // namespace

int cmd_backends(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("json", "print JSON (one object: abi, search_path, backends)");
  const auto vm = parse_options("backends", "zl [--backend-path DIR]... backends [--json]", desc, args);
  if (!vm) {
    return 0;
  }
  const auto& registry = ctx.registry();
  if (vm->count("json")) {
    print_json(registry);
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : registry.modules()) {
    const bool loaded = m.state == loader::ModuleState::loaded;
    rows.push_back({m.name(), dash(util::join(m.aliases(), ",")), loaded ? m.desc.version : "-", dash(m.abi_version()),
                    loader::to_string(m.state), m.path});
  }
  if (rows.empty()) {
    std::cout << "no backend modules found\n";
  } else {
    print_table(std::cout, {"NAME", "ALIASES", "VERSION", "ABI", "STATE", "PATH"}, rows);
  }
  for (const auto& m : registry.modules()) {
    if (m.state != loader::ModuleState::loaded) {
      std::cout << fmt::format("\n{} {}: {}", m.name(), loader::to_string(m.state), m.error);
    }
  }
  std::cout << fmt::format("{}searched: {}\n", rows.size() == registry.modules().size() ? "\n" : "\n\n",
                           loader::describe(registry.dirs()));
  return 0;
}

} // namespace zl::cli
