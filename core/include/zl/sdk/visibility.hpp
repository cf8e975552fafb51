// Visibility: helpers for a backend's filter_visible (backend_abi.h, since 1.1), reading the
// visibility mask a process inherited the way the vendor runtime reads it (zl/backend_sdk.hpp says
// how the SDK's headers fit together). Nothing here crosses the ABI.
//
// Most runtimes take a comma list whose entries each name one device; they differ in what an
// entry may be (an index, a UUID or its prefix, a MIG id) and in what happens at an entry they do
// not understand (CUDA and CANN stop reading there). A backend states its form as a MaskEntryMatch
// function and a MaskRules, and read_list_mask applies it; a form that is not a list writes its
// own filter and still answers through guarded_filter.
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/descriptor.hpp>
#include <zl/sdk/device.hpp>
#include <zl/sdk/reason.hpp>
#include <zl/sdk/text.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// One device the mask leaves visible: its position in the enumeration and the value that pins it.
struct VisibleDevice
{
  size_t device = 0;
  std::string pin;
};

// What a filter answers. masked is false when no mask was inherited (then visible lists every
// device); mask is "VAR=value" (several joined by "; "); note says how the mask was read.
struct Visibility
{
  bool masked = false;
  std::string mask;
  std::vector<VisibleDevice> visible;
  std::string note;
};

// How one entry of a list mask resolves: the device it names (found), else why it is invalid.
struct MaskEntry
{
  bool found = false;
  size_t device = 0;
  std::string pin;     // the value that pins this device; the entry itself when empty
  std::string invalid; // why the runtime rejects the entry (when not found)
};

// Resolves one trimmed entry against the devices (their unmasked numbering).
using MaskEntryMatch = MaskEntry (*)(std::string_view entry, const std::vector<Device>& devices);

struct MaskRules
{
  // Entries must name devices in ascending index order (CANN); one that does not is invalid.
  bool ascending = false;
  // Spaces around an entry are dropped; false where the runtime rejects them (CANN).
  bool trim_entries = true;
  // What the runtime does at an invalid entry, as the note says it. Reading always stops there:
  // the documented behaviour of CUDA and CANN, and the narrower reading where a vendor is silent.
  std::string on_invalid = "the runtime stops reading the list there: that entry and every one after it are ignored";
};

// The index entry form: a decimal that is some device's index in the unmasked numbering.
inline MaskEntry match_index(std::string_view entry, const std::vector<Device>& devices)
{
  MaskEntry m;
  uint64_t index = 0;
  if (!parse_u64(entry, index)) {
    m.invalid = "is not a device index";
    return m;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].index == index) {
      m.found = true;
      m.device = i;
      return m;
    }
  }
  m.invalid = "names no device (the indices are " + [&] {
    std::string all;
    for (const auto& d : devices) {
      all += (all.empty() ? "" : ", ") + std::to_string(d.index);
    }
    return all.empty() ? std::string("none") : all;
  }() + ")";
  return m;
}

// Reads `value` of variable `var` as a comma list under `rules`. The empty value hides every
// device. A device named twice is visible once (and noted). Devices keep the list's order, which
// is the order the runtime numbers them in.
inline Visibility read_list_mask(std::string_view var, std::string_view value, const std::vector<Device>& devices,
                                 MaskEntryMatch match, const MaskRules& rules = {})
{
  Visibility v;
  v.masked = true;
  v.mask = std::string(var) + "=" + std::string(value);
  if (trim(value).empty()) {
    v.note = std::string(var) + " is set but empty, which hides every device";
    return v;
  }
  std::string notes;
  size_t position = 0;
  for (auto raw : split(value, ",")) {
    ++position;
    const auto entry = rules.trim_entries ? trim(raw) : raw;
    MaskEntry m = entry.empty() ? MaskEntry{false, 0, "", "is empty"} : match(entry, devices);
    if (m.found && rules.ascending && !v.visible.empty() &&
        devices[m.device].index <= devices[v.visible.back().device].index) {
      m = MaskEntry{false, 0, "", "does not ascend (the runtime takes ascending IDs only)"};
    }
    if (!m.found) {
      notes += (notes.empty() ? "" : "; ") + std::string(var) + " entry " + std::to_string(position) + " " +
               quote(entry) + " " + m.invalid + ": " + rules.on_invalid;
      break;
    }
    const bool twice =
        std::any_of(v.visible.begin(), v.visible.end(), [&](const VisibleDevice& d) { return d.device == m.device; });
    if (twice) {
      notes += (notes.empty() ? "" : "; ") + std::string(var) + " entry " + std::to_string(position) + " " +
               quote(entry) + " names a device already listed; it counts once";
      continue;
    }
    v.visible.push_back({m.device, m.pin.empty() ? std::string(entry) : m.pin});
  }
  v.note = notes;
  return v;
}

// Every device visible, pinned by its visibility_id: the answer when no mask was inherited.
inline Visibility all_visible(const std::vector<Device>& devices)
{
  Visibility v;
  for (size_t i = 0; i < devices.size(); ++i) {
    v.visible.push_back({i, devices[i].visibility_id});
  }
  return v;
}

// The value of a variable of the zl process; empty optional-like (nullptr) when unset.
inline const char* env_value(const zl_host_api* host, const char* name)
{
  return host != nullptr && host->get_env != nullptr ? host->get_env(host->ctx, name) : nullptr;
}

// The filter_visible of a descriptor: turns the core's arrays into Devices, runs Filter, copies
// the answer back, and turns any exception into ZL_ERR_INTERNAL with a note.
template <Visibility (*Filter)(const zl_host_api*, const std::vector<Device>&)>
// NOLINTNEXTLINE(bugprone-exception-escape): clang-tidy 14 sees body's throws here, not in guarded_call's try
zl_status guarded_filter(const zl_host_api* host, const zl_device_info* devices, uint32_t count,
                         zl_visibility* out) noexcept
{
  const auto body = [&] {
    std::vector<Device> all;
    for (uint32_t i = 0; i < count; ++i) {
      const auto& d = devices[i];
      all.push_back({d.index, text_field(d.uuid), text_field(d.name), d.memory_bytes, text_field(d.visibility_id)});
    }
    const Visibility v = Filter(host, all);
    out->masked = v.masked ? 1 : 0;
    copy_field(out->mask, v.mask);
    copy_field(out->note, v.note);
    out->count = static_cast<uint32_t>(v.visible.size());
    for (size_t i = 0; i < v.visible.size() && i < out->capacity; ++i) {
      out->visible[i] = zl_visible_device{};
      out->visible[i].device = static_cast<uint32_t>(v.visible[i].device);
      copy_field(out->visible[i].pin, v.visible[i].pin);
    }
    return ZL_OK;
  };
  return guarded_call(body, out->count, out->note, "reading the visibility mask");
}

} // namespace zl::sdk
