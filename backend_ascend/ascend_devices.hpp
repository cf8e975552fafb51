// Huawei Ascend device enumeration: DCMI (libdcmi.so, opened at run time) first, unless
// ASCEND_RT_VISIBLE_DEVICES is set (DCMI does not support it); else the `npu-smi info` table
// joined with `npu-smi info -m` (NPU/chip -> chip logic ID). Facts and sources: README.md.
#pragma once

#include <zl/backend_abi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_ascend {

inline const std::vector<std::string>& npu_smi_info_argv()
{
  static const std::vector<std::string> argv = {"npu-smi", "info"};
  return argv;
}

inline const std::vector<std::string>& npu_smi_map_argv()
{
  static const std::vector<std::string> argv = {"npu-smi", "info", "-m"};
  return argv;
}

// The variable that pins a process to chips; its presence also rules DCMI out.
constexpr const char* k_visibility_var = "ASCEND_RT_VISIBLE_DEVICES";

struct Device
{
  uint32_t index = 0;        // the chip logic ID: npu-smi's numbering, which the runtime variable takes
  std::string uuid;          // DCMI VDie ID, else the positional "npu<NPU>-chip<Chip>"
  std::string name;          // "Ascend 910B4"
  uint64_t memory_bytes = 0; // HBM (or DDR on chips without HBM)
  std::string visibility_id; // what ASCEND_RT_VISIBLE_DEVICES takes: the chip logic ID
};

struct ParseResult
{
  std::vector<Device> devices;
  std::string error; // empty on success; otherwise quotes the offending line
  bool ok() const { return error.empty(); }
};

// One chip row of the `npu-smi info` table, with its card's name row.
struct TableChip
{
  uint32_t npu = 0;  // NPU ID (the card, DCMI's card_id)
  uint32_t chip = 0; // Chip (DCMI's device_id within the card)
  std::string name;  // the name row's Name ("910B4-1")
  uint64_t memory_bytes = 0;
  std::string line; // the chip row as printed, for reasons
};

struct TableResult
{
  std::vector<TableChip> chips;
  std::string error;
  bool ok() const { return error.empty(); }
};

// Parses the `npu-smi info` table, driven by its two header rows: each card is a name row
// ("NPU Name | Health | …") followed by chip rows ("Chip [Phy-ID] | Bus-Id | … HBM-Usage(MB)");
// memory is the total of "used / total" under HBM-Usage(MB), else Memory-Usage(MB).
TableResult parse_npu_smi_info(std::string_view text);

// One row of `npu-smi info -m`; MCU rows (logic ID "-") are left out.
struct LogicRow
{
  uint32_t npu = 0;
  uint32_t chip = 0;
  uint32_t logic = 0;
  std::string name; // "Ascend 910B4"
};

struct MapResult
{
  std::vector<LogicRow> rows;
  std::string error;
  bool ok() const { return error.empty(); }
};

// Parses `npu-smi info -m`, driven by its header (NPU ID, Chip ID, Chip Logic ID, Chip Name;
// newer versions add columns such as Chip Phy-ID).
MapResult parse_npu_smi_map(std::string_view text);

// Joins the table and the map on (NPU ID, Chip ID); every chip must have a logic ID.
ParseResult join_npu_smi(const TableResult& table, const MapResult& map);

// A line as a reason quotes it: in single quotes, shortened when long.
std::string quote(std::string_view line);

struct LibraryResult
{
  enum class State {
    absent, // libdcmi.so could not be opened: detail has dlerror()
    failed, // opened, but a symbol was missing or a call failed: detail says which
    ok,     // devices holds the answer (possibly none)
    skipped // not tried: ASCEND_RT_VISIBLE_DEVICES is set
  };
  State state = State::absent;
  std::string detail;
  std::vector<Device> devices;
};

// Opens libdcmi.so (else /usr/local/dcmi/libdcmi.so) and lists the chips through DCMI.
LibraryResult query_dcmi();

// DCMI reports HBM as a MB count; a value too large for MB is taken as bytes (README.md).
uint64_t dcmi_memory_bytes(unsigned long long memory_size);

using LibraryProbe = LibraryResult (*)();

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// DCMI (unless ASCEND_RT_VISIBLE_DEVICES is set), else npu-smi info + npu-smi info -m.
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

} // namespace zl::backend_ascend
