// nvidia-smi parsing and the NVML-else-nvidia-smi enumeration.
#include "cuda_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <limits>

namespace zl::backend_cuda {

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;

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

} // namespace

ParseResult parse_nvidia_smi_csv(std::string_view text)
{
  ParseResult result = sdk::parse_query_gpu_csv(text, &parse_mib, "MiB count");
  for (Device& d : result.devices) {
    // CUDA_VISIBLE_DEVICES takes the UUID; unlike an index it survives MPS and remapping
    // (vendors.md §1.2).
    d.visibility_id = d.uuid;
  }
  return result;
}

zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe)
{
  const LibraryResult lib = probe();
  if (lib.state == LibraryResult::State::ok) {
    return sdk::publish(out, lib.devices, "NVML (libnvidia-ml.so.1)", "", "GPU");
  }
  const std::string note = sdk::library_note(lib, "libnvidia-ml.so.1", "NVML");

  const sdk::ToolOutput tool = sdk::run_tool(host, nvidia_smi_argv());
  if (tool.status == ZL_ERR_UNAVAILABLE) {
    // The host's sentence reads "nvidia-smi not found on PATH" (or why it could not start).
    return sdk::no_devices(out, sdk::unavailable_reason("nvidia-smi", tool) + " and " + note);
  }
  if (!tool.ok()) {
    return sdk::fail(out, tool.failure_status(), sdk::join_notes({sdk::tool_failure("nvidia-smi", tool), note}));
  }
  const ParseResult parsed = parse_nvidia_smi_csv(tool.out);
  if (!parsed.ok()) {
    return sdk::fail(out, ZL_ERR_PARSE, "nvidia-smi --query-gpu output not understood: " + parsed.error);
  }
  if (lib.state == LibraryResult::State::failed) {
    // The library was there but did not answer: say so, since it usually means a driver problem.
    return sdk::publish(out, parsed.devices, "nvidia-smi (NVML failed)", note + "; devices listed by nvidia-smi",
                        "GPU");
  }
  return sdk::publish(out, parsed.devices, "nvidia-smi", "", "GPU");
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_nvml);
}

} // namespace zl::backend_cuda
