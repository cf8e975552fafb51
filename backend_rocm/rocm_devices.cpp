// The enumeration order for AMD: AMD SMI, else amd-smi, else the deprecated rocm-smi.
#include "rocm_devices.hpp"

#include <zl/backend_sdk.hpp>

namespace zl::backend_rocm {

namespace {

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
    attempt.problem = sdk::unavailable_reason(argv[0], tool);
    return false;
  }
  if (!tool.ok()) {
    attempt.status = tool.failure_status();
    attempt.problem = sdk::tool_failure(form, tool);
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
    return sdk::publish(out, lib.devices, "AMD SMI (libamd_smi.so)", "", "GPU");
  }
  const bool lib_failed = lib.state == LibraryResult::State::failed;
  const std::string note = sdk::library_note(lib, "libamd_smi.so", "AMD SMI");

  const Attempt amd = try_amd_smi(host);
  if (amd.done) {
    return sdk::publish(out, amd.devices, lib_failed ? "amd-smi (AMD SMI failed)" : "amd-smi", lib_failed ? note : "",
                        "GPU");
  }
  // amd-smi absent or unusable: the deprecated rocm-smi still ships with ROCm 6.
  const Attempt legacy = try_rocm_smi(host);
  if (legacy.done) {
    return sdk::publish(out, legacy.devices, lib_failed ? "rocm-smi (AMD SMI failed)" : "rocm-smi",
                        sdk::join_notes({lib_failed ? note : "", amd.problem}), "GPU");
  }
  if (amd.missing && legacy.missing) {
    return sdk::no_devices(out, amd.problem + ", " + legacy.problem + " and " + note);
  }
  // Report what went wrong, the tool that answered badly first.
  const Attempt& bad = amd.missing ? legacy : amd;
  const Attempt& other = amd.missing ? amd : legacy;
  return sdk::fail(out, amd.status == ZL_ERR_PARSE || legacy.status == ZL_ERR_PARSE ? ZL_ERR_PARSE : bad.status,
                   sdk::join_notes({bad.problem, other.problem, note}));
}

zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  return enumerate_with(host, out, &query_amdsmi);
}

sdk::MaskEntry match_rocr_entry(std::string_view entry, const std::vector<Device>& devices)
{
  sdk::MaskEntry m;
  if (sdk::starts_with(entry, "GPU-")) {
    const std::string wanted = rocr_uuid(entry.substr(4));
    for (size_t i = 0; i < devices.size(); ++i) {
      if (!wanted.empty() && devices[i].visibility_id == wanted) {
        m.found = true;
        m.device = i;
        m.pin = wanted;
        return m;
      }
    }
    m.invalid = "is the UUID of no GPU listed";
    return m;
  }
  m = sdk::match_index(entry, devices);
  if (m.found) {
    m.pin = devices[m.device].visibility_id;
  }
  return m;
}

sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices)
{
  sdk::Visibility all = sdk::all_visible(devices);
  // The HIP level falls back to CUDA_VISIBLE_DEVICES only when HIP_VISIBLE_DEVICES is unset.
  const char* hip = sdk::env_value(host, "HIP_VISIBLE_DEVICES");
  const char* const layers[][2] = {{"ROCR_VISIBLE_DEVICES", sdk::env_value(host, "ROCR_VISIBLE_DEVICES")},
                                   {hip != nullptr ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
                                    hip != nullptr ? hip : sdk::env_value(host, "CUDA_VISIBLE_DEVICES")},
                                   {"GPU_DEVICE_ORDINAL", sdk::env_value(host, "GPU_DEVICE_ORDINAL")}};
  sdk::MaskRules rules;
  rules.on_invalid = "zl reads no further (the ROCm documentation does not say how an invalid entry is treated; "
                     "stopping, as CUDA does, can only narrow the mask)";
  std::string notes;
  for (size_t layer = 0; layer < 3; ++layer) {
    const char* var = layers[layer][0];
    const char* value = layers[layer][1];
    if (value == nullptr) {
      continue;
    }
    // Above ROCR, an index counts the GPUs still visible: renumber them 0..n-1 for the match.
    std::vector<Device> seen;
    for (size_t k = 0; k < all.visible.size(); ++k) {
      seen.push_back(devices[all.visible[k].device]);
      if (layer > 0) {
        seen.back().index = static_cast<uint32_t>(k);
      }
    }
    const sdk::Visibility v = sdk::read_list_mask(var, value, seen, &match_rocr_entry, rules);
    std::vector<sdk::VisibleDevice> kept;
    for (const auto& d : v.visible) {
      kept.push_back(all.visible[d.device]);
    }
    all.visible = kept;
    all.masked = true;
    all.mask += (all.mask.empty() ? "" : "; ") + v.mask;
    notes += (notes.empty() || v.note.empty() ? "" : "; ") + v.note;
  }
  // A GPU known only by its index cannot be pinned by UUID, and an index pin would widen the mask.
  std::vector<sdk::VisibleDevice> pinned;
  for (const auto& d : all.visible) {
    if (sdk::starts_with(devices[d.device].visibility_id, "GPU-") || !all.masked) {
      pinned.push_back({d.device, devices[d.device].visibility_id});
    } else {
      notes += (notes.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(devices[d.device].index) +
               " has no ROCr UUID (GPU-<serial>) to pin it by inside the mask, so zl leaves it out";
    }
  }
  all.visible = pinned;
  all.note = notes;
  return all;
}

} // namespace zl::backend_rocm
