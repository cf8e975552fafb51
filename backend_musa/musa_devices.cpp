// The enumeration order for Moore Threads: MTML, else the gmi CSV query, else `mthreads-gmi -q`.
#include "musa_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_musa {

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

std::string mtml_note(const LibraryResult& lib)
{
  if (lib.state == LibraryResult::State::absent) {
    return "libmtml.so not loadable (" + lib.detail + ")";
  }
  return "MTML failed (" + lib.detail + ")";
}

std::string join(std::string_view a, std::string_view b)
{
  if (a.empty()) {
    return std::string(b);
  }
  return b.empty() ? std::string(a) : std::string(a) + "; " + std::string(b);
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
    return sdk::no_devices(out, join(std::string(source) + " lists no GPU", note));
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

// What went wrong with one gmi form, for the reason of the next.
std::string describe(std::string_view form, const sdk::ToolOutput& tool, const ParseResult* parsed)
{
  if (tool.status != ZL_OK) {
    return std::string(form) + " failed: " + tool.reason;
  }
  if (tool.exit_code != 0) {
    return std::string(form) + " exited with code " + std::to_string(tool.exit_code) + ": " + first_line(tool.out);
  }
  return std::string(form) + " output not understood: " + (parsed != nullptr ? parsed->error : "");
}

} // namespace

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  const LibraryResult lib = probe();
  if (lib.state == LibraryResult::State::ok) {
    return publish(out, lib.devices, "MTML (libmtml.so)", "");
  }
  const std::string note = mtml_note(lib);
  const std::string lib_failed = lib.state == LibraryResult::State::failed ? note : "";

  // 1. The CSV query (newer gmi).
  const sdk::ToolOutput csv = sdk::run_tool(host, gmi_csv_argv());
  if (csv.status == ZL_ERR_UNAVAILABLE) {
    const std::string why = csv.reason.empty() ? "mthreads-gmi not found on PATH" : csv.reason;
    return sdk::no_devices(out, why + " and " + note);
  }
  ParseResult parsed;
  if (csv.status == ZL_OK && csv.exit_code == 0) {
    parsed = parse_gmi_csv(csv.out);
    if (parsed.ok()) {
      return publish(out, parsed.devices,
                     lib_failed.empty() ? "mthreads-gmi --query-gpu" : "mthreads-gmi (MTML failed)", lib_failed);
    }
  }
  // 2. Older gmi has no --query-gpu (or answered something else): the full report.
  const std::string csv_problem = describe("mthreads-gmi --query-gpu", csv, &parsed);
  const sdk::ToolOutput query = sdk::run_tool(host, gmi_query_argv());
  if (query.status != ZL_OK || query.exit_code != 0) {
    return fail(out, query.status != ZL_OK ? query.status : ZL_ERR_TOOL_FAILED,
                join(describe("mthreads-gmi -q", query, nullptr), join(csv_problem, note)));
  }
  const ParseResult report = parse_gmi_query(query.out);
  if (!report.ok()) {
    return fail(out, ZL_ERR_PARSE, join(describe("mthreads-gmi -q", query, &report), csv_problem));
  }
  return publish(out, report.devices, lib_failed.empty() ? "mthreads-gmi -q" : "mthreads-gmi -q (MTML failed)",
                 join(lib_failed, csv_problem));
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_mtml);
}

} // namespace zl::backend_musa
