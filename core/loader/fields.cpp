#include "loader/fields.hpp"

#include "util/string.hpp"

#include <optional>

namespace zl::loader {

namespace {

using util::JsonWriter;
using B = BackendField;
using D = DeviceField;

bool loaded(const Selection& s)
{
  return s.module->state == ModuleState::loaded;
}

// A descriptor string; "" for a module that did not load (its descriptor is empty).
template <const char* zl_backend_descriptor::*field>
void described(JsonWriter& j, const Selection& s)
{
  j.value(loaded(s) ? s.module->desc.*field : "");
}

std::string dash(const std::string& s)
{
  return s.empty() ? "-" : s;
}

// `zl backends` prints the columns (NAME ALIASES VERSION ABI TELEMETRY PEAKS STATE PATH); --json
// every field the registry knows; plan.json and run_identity.json the backend a run uses.
const util::Field<Selection, BackendField> k_backend[] = {
    {B::name, "name", [](JsonWriter& j, const Selection& s) { j.value(s.module->name()); }, "NAME",
     [](const Selection& s) { return s.module->name(); }},
    {B::aliases, "aliases", [](JsonWriter& j, const Selection& s) { j.value(s.module->aliases()); }, "ALIASES",
     [](const Selection& s) { return dash(util::join(s.module->aliases(), ",")); }},
    {B::state, "state", [](JsonWriter& j, const Selection& s) { j.value(to_string(s.module->state)); }, "STATE",
     [](const Selection& s) { return std::string(to_string(s.module->state)); }},
    {B::module, "module", [](JsonWriter& j, const Selection& s) { j.value(s.module->path); }, "PATH",
     [](const Selection& s) { return s.module->path; }},
    {B::origin, "origin", [](JsonWriter& j, const Selection& s) { j.value(s.module->folder_origin); }},
    {B::version, "version", described<&zl_backend_descriptor::version>, "VERSION",
     [](const Selection& s) { return loaded(s) ? std::string(s.module->desc.version) : "-"; }},
    {B::abi, "abi", [](JsonWriter& j, const Selection& s) { j.value(s.module->abi_version()); }, "ABI",
     [](const Selection& s) { return dash(s.module->abi_version()); }},
    {B::description, "description", described<&zl_backend_descriptor::description>},
    {B::capabilities, "capabilities",
     [](JsonWriter& j, const Selection& s) {
       j.value(loaded(s) ? capability_names(s.module->desc.capabilities) : std::vector<std::string>{});
     }},
    {B::telemetry, "telemetry", [](JsonWriter& j, const Selection& s) { j.value(s.module->has_telemetry()); },
     "TELEMETRY", [](const Selection& s) { return std::string(s.module->has_telemetry() ? "yes" : "no"); }},
    // null and "-": a module older than ABI 1.3, whose descriptor has no table (0 is an empty one).
    {B::peaks, "peaks",
     [](JsonWriter& j, const Selection& s) {
       j.nullable_value(s.module->has_peaks() ? std::optional<unsigned long long>(s.module->peaks().count)
                                              : std::nullopt);
     },
     "PEAKS", [](const Selection& s) { return s.module->has_peaks() ? std::to_string(s.module->peaks().count) : "-"; }},
    {B::error, "error", [](JsonWriter& j, const Selection& s) { j.value(s.module->error); }},
    {B::selected_by, "selected_by", [](JsonWriter& j, const Selection& s) { j.value(s.how); }},
    {B::flaggems_vendor, "flaggems_vendor", described<&zl_backend_descriptor::flaggems_vendor>},
    {B::torch_module, "torch_module", described<&zl_backend_descriptor::torch_module>},
    {B::torch_device, "torch_device", described<&zl_backend_descriptor::torch_device>},
    {B::graph_class, "graph_class", described<&zl_backend_descriptor::graph_class>},
    {B::visibility_var, "visibility_var", described<&zl_backend_descriptor::visibility_var>},
};

// `zl devices` prints the columns (VISIBLE only under an inherited mask); --json every field.
const util::Field<Device, DeviceField> k_device[] = {
    {D::index, "index", [](JsonWriter& j, const Device& d) { j.value(d.index); }, "INDEX",
     [](const Device& d) { return std::to_string(d.index); }},
    {D::uuid, "uuid", [](JsonWriter& j, const Device& d) { j.value(d.uuid); }, "UUID",
     [](const Device& d) { return d.uuid; }},
    {D::name, "name", [](JsonWriter& j, const Device& d) { j.value(d.name); }, "NAME",
     [](const Device& d) { return d.name; }},
    {D::memory_bytes, "memory_bytes", [](JsonWriter& j, const Device& d) { j.value(d.memory_bytes); }, "MEMORY",
     [](const Device& d) { return util::format_bytes(d.memory_bytes); }},
    {D::visibility_id, "visibility_id", [](JsonWriter& j, const Device& d) { j.value(d.visibility_id); }},
    {D::visible, "visible", [](JsonWriter& j, const Device& d) { j.value(d.visible); }, "VISIBLE",
     [](const Device& d) { return d.visible ? "yes (pin " + d.pin + ")" : std::string("no"); }},
    // null where zl would not pin it: hidden by the mask, or no visibility variable
    {D::pin, "pin", [](JsonWriter& j, const Device& d) { j.nullable_value(d.visible ? d.pin : ""); }},
};

} // namespace

void to_json(JsonWriter& j, const Selection& backend, std::initializer_list<util::Pick<BackendField>> fields)
{
  util::write_fields(j, k_backend, backend, fields);
}

void to_json(JsonWriter& j, const Device& device, std::initializer_list<util::Pick<DeviceField>> fields)
{
  util::write_fields(j, k_device, device, fields);
}

std::vector<std::string> text_header(const std::vector<BackendField>& fields)
{
  return util::text_header(k_backend, fields);
}

std::vector<std::string> text_row(const Module& backend, const std::vector<BackendField>& fields)
{
  return util::text_row(k_backend, Selection{&backend, ""}, fields);
}

std::vector<std::string> text_header(const std::vector<DeviceField>& fields)
{
  return util::text_header(k_device, fields);
}

std::vector<std::string> text_row(const Device& device, const std::vector<DeviceField>& fields)
{
  return util::text_row(k_device, device, fields);
}

} // namespace zl::loader
