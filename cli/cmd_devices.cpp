// zl devices: the selected backend's devices, by physical index and UUID.
#include "output.hpp"

#include "loader/fields.hpp"
#include "util/error.hpp"

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

using D = loader::DeviceField;

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
    using B = loader::BackendField;
    loader::to_json(json, selection, {{B::name, "backend"}, B::selected_by, B::module});
    json.field("source", e.source);
    json.field("reason", e.devices.empty() ? e.reason : "");
    loader::to_json(json, selection, {B::visibility_var});
    json.nullable("inherited_mask", e.masked ? e.mask : "");
    json.nullable("mask_note", e.mask_note);
    json.key("devices");
    w.StartArray();
    for (const auto& d : e.devices) {
      w.StartObject();
      loader::to_json(json, d, {D::index, D::uuid, D::name, D::memory_bytes, D::visibility_id, D::visible, D::pin});
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
  // VISIBLE only where a mask hides some
  std::vector<D> columns = {D::index, D::uuid, D::name, D::memory_bytes};
  if (e.masked) {
    columns.push_back(D::visible);
  }
  std::vector<std::vector<std::string>> rows;
  size_t visible = 0;
  for (const auto& d : e.devices) {
    rows.push_back(loader::text_row(d, columns));
    visible += d.visible ? 1 : 0;
  }
  std::cout << fmt::format("backend {} ({} devices via {})\n", module.name(), e.devices.size(), e.source);
  if (e.masked) {
    std::cout << fmt::format("inherited mask {}: {} of {} devices visible; zl uses only those\n", e.mask, visible,
                             e.devices.size());
    if (!e.mask_note.empty()) {
      std::cout << fmt::format("note: {}\n", e.mask_note);
    }
  }
  print_table(std::cout, loader::text_header(columns), rows);
  return 0;
}

} // namespace zl::cli
