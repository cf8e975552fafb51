// Devices: what a backend collects, and the answer of enumerate_devices written into the core's
// zl_enumeration (zl/backend_sdk.hpp says how the SDK's headers fit together).
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/reason.hpp>
#include <zl/sdk/text.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// One device as a backend collects it before publish copies it into the ABI's fixed buffers.
struct Device
{
  uint32_t index = 0;        // physical index in the vendor tool's numbering (ignores visibility)
  std::string uuid;          // stable identity, as the vendor spells it
  std::string name;          // product name
  uint64_t memory_bytes = 0; // total device memory; 0 when unknown
  std::string visibility_id; // what the descriptor's visibility_var takes to pin this device
};

// What a parser of tool output returns: the devices, or an error that quotes the offending line.
struct ParseResult
{
  std::vector<Device> devices;
  std::string error; // empty on success
  bool ok() const { return error.empty(); }
};

// Parses lines of "index, uuid, name, memory.total": the `--query-gpu=index,uuid,name,memory.total
// --format=csv,noheader` answer of nvidia-smi and the tools modelled on it. Names may contain
// spaces but not commas, so a plain comma split is exact. parse_memory reads the memory field
// (its unit differs between tools; `memory_kind` names what it expects, for the error). Empty
// output is an empty list; a line that is not four fields, an index that is not a number, or
// output that ends mid-line is an error quoting that line. visibility_id is left to the caller.
inline ParseResult parse_query_gpu_csv(std::string_view text, bool (*parse_memory)(std::string_view, uint64_t&),
                                       std::string_view memory_kind)
{
  ParseResult result;
  if (trim(text).empty()) {
    return result;
  }
  const auto all = lines(text);
  size_t number = 0;
  for (auto line : all) {
    ++number;
    if (trim(line).empty()) {
      continue;
    }
    // The header `--format=csv` prints without noheader ("index, uuid, name, memory.total [MiB]").
    if (result.devices.empty() && trim(split(line, ",").front()) == "index") {
      continue;
    }
    if (number == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + quote_line(number, line);
      return result;
    }
    const auto fields = split(line, ",");
    if (fields.size() != 4) {
      result.error = quote_line(number, line) + " has " + std::to_string(fields.size()) +
                     " fields, expected 4 (index, uuid, name, memory.total)";
      return result;
    }
    uint64_t index = 0;
    if (!parse_u64(fields[0], index) || index > std::numeric_limits<uint32_t>::max()) {
      result.error = quote_line(number, line) + ": index " + quote(trim(fields[0])) + " is not a number";
      return result;
    }
    Device d;
    d.index = static_cast<uint32_t>(index);
    d.uuid = std::string(trim(fields[1]));
    d.name = std::string(trim(fields[2]));
    if (d.uuid.empty() || d.name.empty()) {
      result.error = quote_line(number, line) + ": empty uuid or name";
      return result;
    }
    if (!parse_memory(fields[3], d.memory_bytes)) {
      result.error = quote_line(number, line) + ": memory.total " + quote(trim(fields[3])) + " is not a " +
                     std::string(memory_kind);
      return result;
    }
    result.devices.push_back(std::move(d));
  }
  return result;
}

// Fills out->reason and returns ZL_OK with no devices: "no devices, because …".
inline zl_status no_devices(zl_enumeration* out, std::string_view why)
{
  out->count = 0;
  copy_field(out->reason, why);
  return ZL_OK;
}

// The answer: copies what fits of `devices` into the core's array, names the source, and keeps
// `note` (what an earlier step ran into) as the reason. No devices is an answer too, ZL_OK with
// "<source> lists no <kind>" and the note as the reason.
inline zl_status publish(zl_enumeration* out, const std::vector<Device>& devices, std::string_view source,
                         std::string_view note, std::string_view kind = "device")
{
  out->count = static_cast<uint32_t>(devices.size());
  copy_field(out->source, source);
  const size_t n = devices.size() < out->capacity ? devices.size() : out->capacity;
  for (size_t i = 0; i < n; ++i) {
    zl_device_info& dev = out->devices[i];
    dev = zl_device_info{};
    dev.index = devices[i].index;
    dev.memory_bytes = devices[i].memory_bytes;
    copy_field(dev.uuid, devices[i].uuid);
    copy_field(dev.name, devices[i].name);
    copy_field(dev.visibility_id, devices[i].visibility_id);
  }
  if (devices.empty()) {
    return no_devices(out, join_notes({std::string(source) + " lists no " + std::string(kind), note}));
  }
  copy_field(out->reason, note);
  return ZL_OK;
}

// The answer when enumeration failed: no devices, `why` as the reason, `status` returned.
inline zl_status fail(zl_enumeration* out, zl_status status, std::string_view why)
{
  out->count = 0;
  copy_field(out->reason, why);
  return status;
}

} // namespace zl::sdk
