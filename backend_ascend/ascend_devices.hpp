// Huawei Ascend device enumeration: DCMI (libdcmi.so, opened at run time) first, unless
// ASCEND_RT_VISIBLE_DEVICES is set (DCMI does not support it); else the `npu-smi info` table
// joined with `npu-smi info -m` (NPU/chip -> chip logic ID). Facts and sources: README.md.
#pragma once

#include <zl/backend_sdk.hpp>
#include <zl/sdk/visibility.hpp>

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

// index: the chip logic ID, npu-smi's numbering, which the runtime variable takes; uuid: the
// positional "npu<NPU>-chip<Chip>" from either source (chip_identity); name: "Ascend 910B4"; memory_bytes: HBM (or
// DDR on chips without HBM); visibility_id: what ASCEND_RT_VISIBLE_DEVICES takes, the logic ID.
using Device = sdk::Device;
using ParseResult = sdk::ParseResult;

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

// The one identity of a chip, whichever source answered: its position "npu<NPU ID>-chip<Chip>".
// DCMI could give the VDie ID, but npu-smi's table has none and DCMI is skipped whenever
// ASCEND_RT_VISIBLE_DEVICES is set, so a VDie identity would change with the environment.
std::string chip_identity(uint32_t npu, uint32_t chip);

// A chip as DCMI describes it: (card_id, device_id) is npu-smi's (NPU ID, Chip).
Device dcmi_device(uint32_t card, uint32_t chip, uint32_t logic, const std::string& chip_type,
                   const std::string& chip_name, uint64_t memory_bytes);

// Joins the table and the map on (NPU ID, Chip ID); every chip must have a logic ID.
ParseResult join_npu_smi(const TableResult& table, const MapResult& map);

// What DCMI answered (absent: libdcmi.so could not be opened; skipped: ASCEND_RT_VISIBLE_DEVICES
// is set, detail says so).
using LibraryResult = sdk::LibraryResult;

// The names DCMI's card list goes by, preferred first (issue 10.23).
inline constexpr const char* k_card_list_names[] = {"dcmi_get_card_list", "dcmi_get_card_num_list"};

// Opens libdcmi.so (else /usr/local/dcmi/libdcmi.so) and lists the chips through DCMI.
LibraryResult query_dcmi();

// DCMI reports HBM as a MB count; a value too large for MB is taken as bytes (README.md).
uint64_t dcmi_memory_bytes(unsigned long long memory_size);

using LibraryProbe = sdk::LibraryProbe;

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// DCMI (unless ASCEND_RT_VISIBLE_DEVICES is set), else npu-smi info + npu-smi info -m.
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

// The ASCEND_RT_VISIBLE_DEVICES mask the process inherited, read as CANN reads it
// (docs/vendor-facts.md §4.2): logic IDs in ascending order; reading stops at the first invalid
// character or ID ("1, 2,3" gives 1, "1,3,8" gives 1,3 on a 4-chip host). Each chip is pinned by
// its logic ID.
sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices);

// The spec-sheet peaks of the NPUs this backend lists (ascend_peaks.cpp): the descriptor's peaks and
// peak_count (ABI 1.3). Internal to the module, as every symbol but its entry point.
const zl_peak* peaks();
size_t peak_count();

} // namespace zl::backend_ascend
