// nvidia-smi parsing and the NVML-else-nvidia-smi enumeration.
#include "cuda_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <limits>

namespace zl::backend_cuda {

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;

// A line as it appears in a reason: quoted, and shortened when it is long.
std::string quote(std::string_view line)
{
  constexpr size_t k_max = 160;
  if (line.size() > k_max) {
    return "'" + std::string(line.substr(0, k_max)) + "…'";
  }
  return "'" + std::string(line) + "'";
}

std::string at_line(size_t number, std::string_view line)
{
  return "line " + std::to_string(number) + " " + quote(line);
}

// "81559", "81559 MiB" (when nounits was dropped), or "[N/A]" (memory unknown: 0).
bool parse_mib(std::string_view field, uint64_t& bytes)
{
  field = sdk::trim(field);
  if (field == "[N/A]" || field == "N/A") {
    bytes = 0;
    return true;
  }
  if (field.size() > 3 && field.substr(field.size() - 3) == "MiB") {
    field = sdk::trim(field.substr(0, field.size() - 3));
  }
  uint64_t mib = 0;
  if (!sdk::parse_u64(field, mib) || mib > std::numeric_limits<uint64_t>::max() / k_mib) {
    return false;
  }
  bytes = mib * k_mib;
  return true;
}

// The first non-empty line of a tool's output, for a reason.
std::string first_line(std::string_view text)
{
  for (auto line : sdk::lines(text)) {
    if (!sdk::trim(line).empty()) {
      return quote(sdk::trim(line));
    }
  }
  return "(nothing on standard output)";
}

std::string nvml_note(const LibraryResult& lib)
{
  if (lib.state == LibraryResult::State::absent) {
    return "libnvidia-ml.so.1 not loadable (" + lib.detail + ")";
  }
  return "NVML failed (" + lib.detail + ")";
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
    return sdk::no_devices(out, std::string(source) + " lists no GPU" + (note.empty() ? "" : "; " + std::string(note)));
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

} // namespace

ParseResult parse_nvidia_smi_csv(std::string_view text)
{
  ParseResult result;
  if (sdk::trim(text).empty()) {
    return result;
  }
  const auto all = sdk::lines(text);
  size_t number = 0;
  for (auto line : all) {
    ++number;
    if (sdk::trim(line).empty()) {
      continue;
    }
    if (number == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + at_line(number, line);
      return result;
    }
    // Names may contain spaces but not commas, so a plain comma split is exact.
    const auto fields = sdk::split(line, ",");
    if (fields.size() != 4) {
      result.error = at_line(number, line) + " has " + std::to_string(fields.size()) +
                     " fields, expected 4 (index, uuid, name, memory.total)";
      return result;
    }
    Device d;
    uint64_t index = 0;
    if (!sdk::parse_u64(fields[0], index) || index > std::numeric_limits<uint32_t>::max()) {
      result.error = at_line(number, line) + ": index " + quote(sdk::trim(fields[0])) + " is not a number";
      return result;
    }
    d.index = static_cast<uint32_t>(index);
    d.uuid = std::string(sdk::trim(fields[1]));
    d.name = std::string(sdk::trim(fields[2]));
    if (d.uuid.empty() || d.name.empty()) {
      result.error = at_line(number, line) + ": empty uuid or name";
      return result;
    }
    if (!parse_mib(fields[3], d.memory_bytes)) {
      result.error = at_line(number, line) + ": memory.total " + quote(sdk::trim(fields[3])) + " is not a MiB count";
      return result;
    }
    // CUDA_VISIBLE_DEVICES takes the UUID; unlike an index it survives MPS and remapping
    // (vendors.md §1.2).
    d.visibility_id = d.uuid;
    result.devices.push_back(std::move(d));
  }
  return result;
}

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  const LibraryResult lib = probe();
  if (lib.state == LibraryResult::State::ok) {
    return publish(out, lib.devices, "NVML (libnvidia-ml.so.1)", "");
  }
  const std::string note = nvml_note(lib);

  const auto& argv = nvidia_smi_argv();
  const sdk::ToolOutput tool = sdk::run_tool(host, argv);
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    // The host's sentence reads "nvidia-smi not found on PATH" (or why it could not start).
    const std::string why = tool.reason.empty() ? "nvidia-smi not found on PATH" : tool.reason;
    return sdk::no_devices(out, why + " and " + note);
  }
  if (tool.status != ZL_OK) {
    return fail(out, tool.status, "nvidia-smi failed: " + tool.reason + "; " + note);
  }
  if (tool.exit_code != 0) {
    return fail(out, ZL_ERR_TOOL_FAILED,
                "nvidia-smi exited with code " + std::to_string(tool.exit_code) + ": " + first_line(tool.out) + "; " +
                    note);
  }
  const ParseResult parsed = parse_nvidia_smi_csv(tool.out);
  if (!parsed.ok()) {
    return fail(out, ZL_ERR_PARSE, "nvidia-smi --query-gpu output not understood: " + parsed.error);
  }
  if (lib.state == LibraryResult::State::failed) {
    // The library was there but did not answer: say so, since it usually means a driver problem.
    return publish(out, parsed.devices, "nvidia-smi (NVML failed)", note + "; devices listed by nvidia-smi");
  }
  return publish(out, parsed.devices, "nvidia-smi", "");
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_nvml);
}

} // namespace zl::backend_cuda
