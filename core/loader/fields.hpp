// The one serializer of a backend module and of a device: every document that writes one
// (`zl backends`, `zl devices`, plan.json, run_identity.json, sweep.json) picks its fields here.
#pragma once

#include "loader/registry.hpp"
#include "util/fields.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace zl::loader {

// A backend module, as the registry lists it or as a command selected it (selected_by: why).
enum class BackendField {
  name,
  aliases,
  state,
  module, // the file
  origin, // the search entry that found it
  version,
  abi,
  description,
  capabilities,
  error,
  selected_by,
  flaggems_vendor,
  torch_module,
  torch_device,
  graph_class,
  visibility_var,
  telemetry, // whether it reads the device's state (read_telemetry, ABI 1.2)
  peaks,     // how many spec-peak entries its table has (ABI 1.3); none for an older module
};

enum class DeviceField { index, uuid, name, memory_bytes, visibility_id, visible, pin };

// Write the fields picked, in that order, as members of the JSON object being written. A
// module that did not load has "" for its descriptor's strings and no capabilities.
void to_json(util::JsonWriter& j, const Selection& backend, std::initializer_list<util::Pick<BackendField>> fields);
void to_json(util::JsonWriter& j, const Device& device, std::initializer_list<util::Pick<DeviceField>> fields);

// The text table's header and one row, for the fields picked that are columns.
std::vector<std::string> text_header(const std::vector<BackendField>& fields);
std::vector<std::string> text_row(const Module& backend, const std::vector<BackendField>& fields);
std::vector<std::string> text_header(const std::vector<DeviceField>& fields);
std::vector<std::string> text_row(const Device& device, const std::vector<DeviceField>& fields);

} // namespace zl::loader
