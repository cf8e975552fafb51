// The enumeration order for Moore Threads: MTML, else the gmi CSV query, else `mthreads-gmi -q`.
#include "musa_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_musa {

namespace {

// What went wrong with one gmi form, for the reason of the next.
std::string describe(std::string_view form, const sdk::ToolOutput& tool, const ParseResult* parsed)
{
  if (!tool.ok()) {
    return sdk::tool_failure(form, tool);
  }
  return std::string(form) + " output not understood: " + (parsed != nullptr ? parsed->error : "");
}

} // namespace

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  const LibraryResult lib = probe();
  if (lib.state == LibraryResult::State::ok) {
    return sdk::publish(out, lib.devices, "MTML (libmtml.so)", "", "GPU");
  }
  const std::string note = sdk::library_note(lib, "libmtml.so", "MTML");
  const std::string lib_failed = lib.state == LibraryResult::State::failed ? note : "";

  // 1. The CSV query (newer gmi).
  const sdk::ToolOutput csv = sdk::run_tool(host, gmi_csv_argv());
  if (csv.status == ZL_ERR_UNAVAILABLE) {
    return sdk::no_devices(out, sdk::unavailable_reason("mthreads-gmi", csv) + " and " + note);
  }
  ParseResult parsed;
  if (csv.ok()) {
    parsed = parse_gmi_csv(csv.out);
    if (parsed.ok()) {
      return sdk::publish(out, parsed.devices,
                          lib_failed.empty() ? "mthreads-gmi --query-gpu" : "mthreads-gmi (MTML failed)", lib_failed,
                          "GPU");
    }
  }
  // 2. Older gmi has no --query-gpu (or answered something else): the full report.
  const std::string csv_problem = describe("mthreads-gmi --query-gpu", csv, &parsed);
  const sdk::ToolOutput query = sdk::run_tool(host, gmi_query_argv());
  if (!query.ok()) {
    return sdk::fail(out, query.failure_status(),
                     sdk::join_notes({describe("mthreads-gmi -q", query, nullptr), csv_problem, note}));
  }
  const ParseResult report = parse_gmi_query(query.out);
  if (!report.ok()) {
    return sdk::fail(out, ZL_ERR_PARSE, sdk::join_notes({describe("mthreads-gmi -q", query, &report), csv_problem}));
  }
  return sdk::publish(out, report.devices, lib_failed.empty() ? "mthreads-gmi -q" : "mthreads-gmi -q (MTML failed)",
                      sdk::join_notes({lib_failed, csv_problem}), "GPU");
}

sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices)
{
  const char* value = sdk::env_value(host, "MUSA_VISIBLE_DEVICES");
  if (value == nullptr) {
    return sdk::all_visible(devices);
  }
  sdk::MaskRules rules;
  rules.on_invalid = "zl reads no further (how the MUSA runtime treats it is not documented; stopping, as CUDA "
                     "does, can only narrow the mask)";
  return sdk::read_list_mask("MUSA_VISIBLE_DEVICES", value, devices, &sdk::match_index, rules);
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_mtml);
}

} // namespace zl::backend_musa
