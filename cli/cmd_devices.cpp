// zl devices: the selected backend's devices, by physical index and UUID.
#include "output.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl [--backend NAME] devices [--json]\n\n"
    "Lists every device of the backend by its physical index and UUID. When the process inherited a\n"
    "visibility mask (the backend's visibility variable, set by Slurm, a container runtime or a device\n"
    "plugin), the backend reads it as its runtime would and zl uses only the devices it leaves visible:\n"
    "the list says which, and the value zl would set to pin each one without widening the mask.";

} // namespace

int cmd_devices(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("json", "print JSON (backend, selected_by, source, reason, visibility_var, inherited_mask, "
                             "mask_note, devices with visible and pin)");
  const auto vm = parse_options("devices", k_usage, desc, args);
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
    json.nullable("inherited_mask", e.masked ? e.mask : "");
    json.nullable("mask_note", e.mask_note);
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
      json.key("visible");
      w.Bool(d.visible);
      json.nullable("pin", d.visible ? d.pin : "");
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
  size_t visible = 0;
  for (const auto& d : e.devices) {
    rows.push_back({std::to_string(d.index), d.uuid, d.name, util::format_bytes(d.memory_bytes)});
    if (e.masked) {
      rows.back().push_back(d.visible ? "yes (pin " + d.pin + ")" : "no");
    }
    visible += d.visible ? 1 : 0;
  }
  std::cout << fmt::format("backend {} ({} devices via {})\n", module.name(), e.devices.size(), e.source);
  if (e.masked) {
    std::cout << fmt::format("inherited mask {}: {} of {} devices visible; zl uses only those\n", e.mask, visible,
                             e.devices.size());
    if (!e.mask_note.empty()) {
      std::cout << fmt::format("note: {}\n", e.mask_note);
    }
    print_table(std::cout, {"INDEX", "UUID", "NAME", "MEMORY", "VISIBLE"}, rows);
    return 0;
  }
  print_table(std::cout, {"INDEX", "UUID", "NAME", "MEMORY"}, rows);
  return 0;
}

} // namespace zl::cli
