// The enumeration order for Ascend: DCMI unless ASCEND_RT_VISIBLE_DEVICES is set, else
// `npu-smi info` joined with `npu-smi info -m`.
#include "ascend_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_ascend {

namespace {

std::string first_line(std::string_view text)
{
  for (auto line : sdk::lines(text)) {
    if (!sdk::trim(line).empty()) {
      return quote(sdk::trim(line));
    }
  }
  return "(nothing on standard output)";
}

std::string join(std::string_view a, std::string_view b)
{
  if (a.empty()) {
    return std::string(b);
  }
  return b.empty() ? std::string(a) : std::string(a) + "; " + std::string(b);
}

std::string dcmi_note(const LibraryResult& lib)
{
  switch (lib.state) {
  case LibraryResult::State::skipped:
    return "DCMI skipped because ASCEND_RT_VISIBLE_DEVICES is set (DCMI does not support it)";
  case LibraryResult::State::failed:
    return "DCMI failed (" + lib.detail + ")";
  default:
    return "libdcmi.so not loadable (" + lib.detail + ")";
  }
}

zl_status publish(zl_enumeration* out, const std::vector<Device>& devices, std::string_view source,
                  std::string_view note)
{
  out->count = static_cast<uint32_t>(devices.size());
  sdk::copy_field(out->source, source);
  const size_t n = devices.size() < out->capacity ? devices.size() : out->capacity;
  for (size_t i = 0; i < n; ++i) {
    zl_device_info& dev = out->devices[i];
    dev = zl_device_info{};
    dev.index = devices[i].index;
    dev.memory_bytes = devices[i].memory_bytes;
    sdk::copy_field(dev.uuid, devices[i].uuid);
    sdk::copy_field(dev.name, devices[i].name);
    sdk::copy_field(dev.visibility_id, devices[i].visibility_id);
  }
  if (devices.empty()) {
    return sdk::no_devices(out, join(std::string(source) + " lists no NPU", note));
  }
  sdk::copy_field(out->reason, note);
  return ZL_OK;
}

zl_status fail(zl_enumeration* out, zl_status status, std::string_view why)
{
  out->count = 0;
  sdk::copy_field(out->reason, why);
  return status;
}

// A run that did not produce output to parse: the status to return and the reason, else OK.
zl_status check(const sdk::ToolOutput& tool, std::string_view form, std::string& why)
{
  if (tool.status != ZL_OK) {
    why = std::string(form) + " failed: " + tool.reason;
    return tool.status;
  }
  if (tool.exit_code != 0) {
    why = std::string(form) + " exited with code " + std::to_string(tool.exit_code) + ": " + first_line(tool.out);
    return ZL_ERR_TOOL_FAILED;
  }
  return ZL_OK;
}

} // namespace

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  // DCMI is documented as unsupported together with ASCEND_RT_VISIBLE_DEVICES (vendors.md §4.2).
  LibraryResult lib;
  if (host->get_env != nullptr && host->get_env(host->ctx, k_visibility_var) != nullptr) {
    lib.state = LibraryResult::State::skipped;
  } else {
    lib = probe();
  }
  if (lib.state == LibraryResult::State::ok) {
    return publish(out, lib.devices, "DCMI (libdcmi.so)", "");
  }
  const std::string note = dcmi_note(lib);
  const std::string told = lib.state == LibraryResult::State::absent ? "" : note;
  const char* source = lib.state == LibraryResult::State::failed ? "npu-smi (DCMI failed)" : "npu-smi";

  const sdk::ToolOutput info = sdk::run_tool(host, npu_smi_info_argv());
  if (info.status == ZL_ERR_UNAVAILABLE) {
    const std::string why = info.reason.empty() ? "npu-smi not found on PATH" : info.reason;
    return sdk::no_devices(out, why + " and " + note);
  }
  std::string why;
  if (const zl_status st = check(info, "npu-smi info", why); st != ZL_OK) {
    return fail(out, st, join(why, note));
  }
  const TableResult table = parse_npu_smi_info(info.out);
  if (!table.ok()) {
    return fail(out, ZL_ERR_PARSE, "npu-smi info output not understood: " + table.error);
  }
  if (table.chips.empty()) {
    return publish(out, {}, source, told);
  }

  const sdk::ToolOutput map = sdk::run_tool(host, npu_smi_map_argv());
  if (const zl_status st = check(map, "npu-smi info -m", why); st != ZL_OK) {
    return fail(out, st, join(why, note));
  }
  const MapResult logic = parse_npu_smi_map(map.out);
  if (!logic.ok()) {
    return fail(out, ZL_ERR_PARSE, "npu-smi info -m output not understood: " + logic.error);
  }
  const ParseResult joined = join_npu_smi(table, logic);
  if (!joined.ok()) {
    return fail(out, ZL_ERR_PARSE, joined.error);
  }
  return publish(out, joined.devices, source, told);
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_dcmi);
}

} // namespace zl::backend_ascend
