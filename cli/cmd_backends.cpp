// zl backends: every module found, like `ompi_info` or `ucx_info -d`: a failed module is listed
// with its reason, never left out.
#include "output.hpp"

#include "loader/fields.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

using B = loader::BackendField;

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
    w.StartObject();
    loader::to_json(json, {&m, ""},
                    {B::name,
                     B::aliases,
                     B::state,
                     {B::module, "path"},
                     B::origin,
                     B::version,
                     B::abi,
                     B::description,
                     B::capabilities,
                     B::telemetry,
                     B::peaks,
                     B::error});
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
  const std::vector<B> columns = {B::name, B::aliases, B::version, B::abi, B::telemetry, B::peaks, B::state, B::module};
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : registry.modules()) {
    rows.push_back(loader::text_row(m, columns));
  }
  if (rows.empty()) {
    std::cout << "no backend modules found\n";
  } else {
    print_table(std::cout, loader::text_header(columns), rows);
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
