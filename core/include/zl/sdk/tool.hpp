// Vendor tools: running an SMI tool through the host (no shell) and wording why it gave nothing
// to parse (zl/backend_sdk.hpp says how the SDK's headers fit together).
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/reason.hpp>
#include <zl/sdk/text.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// The result of running a vendor tool through the host.
struct ToolOutput
{
  zl_status status = ZL_OK;
  int exit_code = 0;
  std::string out;    // standard output
  std::string reason; // the host's sentence when status is not ZL_OK; when the tool exited
                      // non-zero, the last line it wrote to standard error (possibly empty)

  // Whether the tool ran to the end and exited 0: its output is worth parsing.
  bool ok() const { return status == ZL_OK && exit_code == 0; }

  // What to return when it is not ok(): the host's status, or ZL_ERR_TOOL_FAILED for a non-zero
  // exit; ZL_OK when it is ok().
  zl_status failure_status() const { return status != ZL_OK ? status : exit_code != 0 ? ZL_ERR_TOOL_FAILED : ZL_OK; }
};

// Runs argv through the host (no shell) and collects standard output; the host captures the
// exit code and, on failure, the reason.
inline ToolOutput run_tool(const zl_host_api* host, const std::vector<std::string>& argv, uint32_t timeout_ms = 20000)
{
  ToolOutput result;
  std::vector<const char*> args;
  for (const auto& a : argv) {
    args.push_back(a.c_str());
  }
  args.push_back(nullptr);
  char reason[512] = {};
  auto sink = [](void* ctx, const char* data, size_t size) { static_cast<std::string*>(ctx)->append(data, size); };
  result.status = host->run_program(host->ctx, args.data(), timeout_ms, sink, &result.out, &result.exit_code, reason,
                                    sizeof(reason));
  result.reason = reason;
  return result;
}

// Why a tool gave nothing to parse, as one clause; empty when output.ok(). "<tool> failed: <the
// host's sentence>" when it could not run to the end (not found, killed on timeout), else
// "<tool> exited with code <n>: <what it said>", where what it said is its last line on standard
// error, else its first line on standard output (nvidia-smi reports driver failures there), both
// quoted. `tool` is how the reason names the command ("amd-smi list").
inline std::string tool_failure(std::string_view tool, const ToolOutput& output)
{
  if (output.status != ZL_OK) {
    return std::string(tool) + " failed: " + output.reason;
  }
  if (output.exit_code == 0) {
    return {};
  }
  const auto on_stderr = trim(output.reason);
  std::string said = on_stderr.empty() ? first_line_quoted(output.out) : quote(on_stderr);
  if (said.empty()) {
    // Only standard output can be vouched for: the host passes on just stderr's last line.
    said = "(nothing on standard output)";
  }
  return std::string(tool) + " exited with code " + std::to_string(output.exit_code) + ": " + said;
}

// Why the host could not start a tool (status ZL_ERR_UNAVAILABLE): its sentence, or
// "<tool> not found on PATH" when it gave none.
inline std::string unavailable_reason(std::string_view tool, const ToolOutput& output)
{
  return output.reason.empty() ? std::string(tool) + " not found on PATH" : output.reason;
}

} // namespace zl::sdk
