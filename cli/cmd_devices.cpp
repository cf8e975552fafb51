// zl devices: the selected backend's devices, by physical index and UUID.
#include "output.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

int cmd_devices(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("json", "print JSON (backend, selected_by, source, reason, devices)");
  const auto vm = parse_options("devices", "zl [--backend NAME] devices [--json]", desc, args);
  if (!vm) {
    return 0;
  }
  const auto selection = ctx.select_backend();
  const auto& module = *selection.module;
  const auto e = module.enumerate();
  if (e.status != ZL_OK) {
    throw Error(fmt::format("backend {} could not list its devices: {} ({})", module.name(), e.reason, module.path));
  }
  if (vm->count("json")) {
    util::JsonWriter json;
    auto& w = json.w();
    w.StartObject();
    json.field("backend", module.name());
    json.field("selected_by", selection.how);
    json.field("module", module.path);
    json.field("source", e.source);
    json.field("reason", e.devices.empty() ? e.reason : "");
    json.field("visibility_var", module.desc.visibility_var);
    json.key("devices");
    w.StartArray();
    for (const auto& d : e.devices) {
      w.StartObject();
      json.key("index");
      w.Uint(d.index);
      json.field("uuid", d.uuid);
      json.field("name", d.name);
      json.key("memory_bytes");
      w.Uint64(d.memory_bytes);
      json.field("visibility_id", d.visibility_id);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << json.text();
    return 0;
  }
  if (e.devices.empty()) {
    std::cout << fmt::format("backend {}: no devices, because {}\n", module.name(), e.reason);
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : e.devices) {
    rows.push_back({std::to_string(d.index), d.uuid, d.name, util::format_bytes(d.memory_bytes)});
  }
  std::cout << fmt::format("backend {} ({} devices via {})\n", module.name(), e.devices.size(), e.source);
  print_table(std::cout, {"INDEX", "UUID", "NAME", "MEMORY"}, rows);
  return 0;
}

} // namespace zl::cli
