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
  // What nvidia-smi prints, instead of rows, on a host whose driver sees no GPU.
  if (sdk::trim(text) == "No devices were found") {
    return {};
  }
  ParseResult result = sdk::parse_query_gpu_csv(text, &parse_mib, "MiB count");
  for (Device& d : result.devices) {
    // CUDA_VISIBLE_DEVICES takes the UUID; unlike an index it survives MPS and remapping
    // (docs/vendor-facts.md §1.2).
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

sdk::MaskEntry match_cuda_entry(std::string_view entry, const std::vector<Device>& devices)
{
  if (!entry.empty() && entry.front() >= '0' && entry.front() <= '9') {
    auto m = sdk::match_index(entry, devices);
    if (m.found) {
      m.pin = devices[m.device].uuid; // the same device; a UUID survives MPS remapping
    }
    return m;
  }
  sdk::MaskEntry m;
  std::string_view gpu = entry;
  const bool mig = sdk::starts_with(entry, "MIG-");
  if (mig) {
    // MIG-GPU-<uuid>/<gi>/<ci> names a slice of a GPU zl lists; MIG-<uuid> (R470 onward) names an
    // instance by its own UUID, which no GPU zl lists carries.
    gpu = entry.substr(4, entry.find('/') == std::string_view::npos ? std::string_view::npos : entry.find('/') - 4);
    if (!sdk::starts_with(gpu, "GPU-") || entry.find('/') == std::string_view::npos) {
      m.invalid = "names a MIG instance by its own UUID, which zl cannot place on a GPU it lists";
      return m;
    }
  } else if (!sdk::starts_with(entry, "GPU-")) {
    m.invalid = "is neither an index, a GPU-<uuid> nor a MIG id";
    return m;
  }
  size_t matches = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    // A unique prefix is enough for CUDA; a MIG id carries the GPU's full UUID.
    const bool hit = mig ? devices[i].uuid == gpu : sdk::starts_with(devices[i].uuid, gpu);
    if (hit) {
      ++matches;
      m.device = i;
    }
  }
  if (matches != 1) {
    m.invalid = matches == 0 ? "is the UUID of no GPU listed" : "is a prefix of several GPUs' UUIDs";
    return m;
  }
  m.found = true;
  m.pin = mig ? std::string(entry) : devices[m.device].uuid;
  return m;
}

sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices)
{
  const char* value = sdk::env_value(host, "CUDA_VISIBLE_DEVICES");
  if (value == nullptr) {
    return sdk::all_visible(devices);
  }
  sdk::MaskRules rules;
  rules.on_invalid = "CUDA stops reading the list there (its documented behaviour), so that entry and every one "
                     "after it are ignored";
  return sdk::read_list_mask("CUDA_VISIBLE_DEVICES", value, devices, &match_cuda_entry, rules);
}

} // namespace zl::backend_cuda
