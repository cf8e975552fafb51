// The enumeration order for AMD: AMD SMI, else amd-smi, else the deprecated rocm-smi.
#include "rocm_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_rocm {

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

// One tool's attempt: devices, or why not.
struct Attempt
{
  bool done = false;
  bool missing = false; // the tool is not installed
  zl_status status = ZL_OK;
  std::string problem;
  std::vector<Device> devices;
};

// Runs one command; false (with attempt filled) when it could not give output to parse.
bool run(const zl_host_api* host, const std::vector<std::string>& argv, sdk::ToolOutput& tool, Attempt& attempt)
{
  tool = sdk::run_tool(host, argv);
  // "amd-smi list", "amd-smi static", "rocm-smi"
  const std::string form = argv.size() > 1 && argv[1][0] != '-' ? argv[0] + " " + argv[1] : argv[0];
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    attempt.missing = true;
    attempt.problem = tool.reason.empty() ? argv[0] + " not found on PATH" : tool.reason;
    return false;
  }
  if (tool.status != ZL_OK) {
    attempt.status = tool.status;
    attempt.problem = form + " failed: " + tool.reason;
    return false;
  }
  if (tool.exit_code != 0) {
    attempt.status = ZL_ERR_TOOL_FAILED;
    attempt.problem = form + " exited with code " + std::to_string(tool.exit_code) + ": " + first_line(tool.out);
    return false;
  }
  return true;
}

void accept(Attempt& attempt, ParseResult parsed)
{
  if (parsed.ok()) {
    attempt.done = true;
    attempt.devices = std::move(parsed.devices);
  } else {
    attempt.status = ZL_ERR_PARSE;
    attempt.problem = parsed.error;
  }
}

Attempt try_amd_smi(const zl_host_api* host)
{
  Attempt attempt;
  sdk::ToolOutput list;
  sdk::ToolOutput stat;
  if (run(host, amd_smi_list_argv(), list, attempt) && run(host, amd_smi_static_argv(), stat, attempt)) {
    accept(attempt, parse_amd_smi(list.out, stat.out));
  }
  return attempt;
}

Attempt try_rocm_smi(const zl_host_api* host)
{
  Attempt attempt;
  sdk::ToolOutput tool;
  if (run(host, rocm_smi_argv(), tool, attempt)) {
    accept(attempt, parse_rocm_smi(tool.out));
  }
  return attempt;
}

} // namespace

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  const LibraryResult lib = probe();
  if (lib.state == LibraryResult::State::ok) {
    return publish(out, lib.devices, "AMD SMI (libamd_smi.so)", "");
  }
  const bool lib_failed = lib.state == LibraryResult::State::failed;
  const std::string note =
      lib_failed ? "AMD SMI failed (" + lib.detail + ")" : "libamd_smi.so not loadable (" + lib.detail + ")";

  const Attempt amd = try_amd_smi(host);
  if (amd.done) {
    return publish(out, amd.devices, lib_failed ? "amd-smi (AMD SMI failed)" : "amd-smi", lib_failed ? note : "");
  }
  // amd-smi absent or unusable: the deprecated rocm-smi still ships with ROCm 6.
  const Attempt legacy = try_rocm_smi(host);
  if (legacy.done) {
    return publish(out, legacy.devices, lib_failed ? "rocm-smi (AMD SMI failed)" : "rocm-smi",
                   join(lib_failed ? note : "", amd.problem));
  }
  if (amd.missing && legacy.missing) {
    return sdk::no_devices(out, amd.problem + ", " + legacy.problem + " and " + note);
  }
  // Report what went wrong, the tool that answered badly first.
  out->count = 0;
  const Attempt& bad = amd.missing ? legacy : amd;
  const Attempt& other = amd.missing ? amd : legacy;
  sdk::copy_field(out->reason, join(join(bad.problem, other.problem), note));
  return amd.status == ZL_ERR_PARSE || legacy.status == ZL_ERR_PARSE ? ZL_ERR_PARSE : bad.status;
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_amdsmi);
}

} // namespace zl::backend_rocm
