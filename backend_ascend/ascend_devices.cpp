// The enumeration order for Ascend: DCMI unless ASCEND_RT_VISIBLE_DEVICES is set, else
// `npu-smi info` joined with `npu-smi info -m`.
#include "ascend_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_ascend {

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  // DCMI is documented as unsupported with ASCEND_RT_VISIBLE_DEVICES (docs/vendor-facts.md §4.2).
  LibraryResult lib;
  if (host->get_env != nullptr && host->get_env(host->ctx, k_visibility_var) != nullptr) {
    lib.state = LibraryResult::State::skipped;
    lib.detail = std::string(k_visibility_var) + " is set (DCMI does not support it)";
  } else {
    lib = probe();
  }
  if (lib.state == LibraryResult::State::ok) {
    return sdk::publish(out, lib.devices, "DCMI (libdcmi.so)", "", "NPU");
  }
  const std::string note = sdk::library_note(lib, "libdcmi.so", "DCMI");
  const std::string told = lib.state == LibraryResult::State::absent ? "" : note;
  const char* source = lib.state == LibraryResult::State::failed ? "npu-smi (DCMI failed)" : "npu-smi";

  const sdk::ToolOutput info = sdk::run_tool(host, npu_smi_info_argv());
  if (info.status == ZL_ERR_UNAVAILABLE) {
    return sdk::no_devices(out, sdk::unavailable_reason("npu-smi", info) + " and " + note);
  }
  if (!info.ok()) {
    return sdk::fail(out, info.failure_status(), sdk::join_notes({sdk::tool_failure("npu-smi info", info), note}));
  }
  const TableResult table = parse_npu_smi_info(info.out);
  if (!table.ok()) {
    return sdk::fail(out, ZL_ERR_PARSE, "npu-smi info output not understood: " + table.error);
  }
  if (table.chips.empty()) {
    return sdk::publish(out, {}, source, told, "NPU");
  }

  const sdk::ToolOutput map = sdk::run_tool(host, npu_smi_map_argv());
  if (!map.ok()) {
    return sdk::fail(out, map.failure_status(), sdk::join_notes({sdk::tool_failure("npu-smi info -m", map), note}));
  }
  const MapResult logic = parse_npu_smi_map(map.out);
  if (!logic.ok()) {
    return sdk::fail(out, ZL_ERR_PARSE, "npu-smi info -m output not understood: " + logic.error);
  }
  const ParseResult joined = join_npu_smi(table, logic);
  if (!joined.ok()) {
    return sdk::fail(out, ZL_ERR_PARSE, joined.error);
  }
  return sdk::publish(out, joined.devices, source, told, "NPU");
}

namespace {

// A logic ID written exactly: CANN stops at the first character it does not expect, spaces too.
sdk::MaskEntry match_logic_id(std::string_view entry, const std::vector<Device>& devices)
{
  if (entry.find_first_not_of("0123456789") != std::string_view::npos) {
    return {false, 0, "", "is not a logic ID (digits only)"};
  }
  return sdk::match_index(entry, devices);
}

} // namespace

sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices)
{
  const char* value = sdk::env_value(host, k_visibility_var);
  if (value == nullptr) {
    return sdk::all_visible(devices);
  }
  sdk::MaskRules rules;
  rules.ascending = true;
  rules.trim_entries = false;
  rules.on_invalid = "CANN stops reading there (its documented behaviour), so that entry and every one after it "
                     "are ignored";
  return sdk::read_list_mask(k_visibility_var, value, devices, &match_logic_id, rules);
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_dcmi);
}

} // namespace zl::backend_ascend
