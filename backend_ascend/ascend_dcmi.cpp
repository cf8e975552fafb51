// DCMI through dlopen: no CANN SDK at build time, no hard dependency at run time.
// Prototypes and structs: the Ascend 910B DCMI API reference (docs/vendor-facts.md §4.1). Cards
// and the chips in them are addressed as (card_id, device_id), which npu-smi prints as NPU ID and
// Chip.
#include "ascend_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <algorithm>
#include <cstdio>

namespace zl::backend_ascend {

namespace {

constexpr int k_max_cards = 64;
constexpr size_t k_chip_name_len = 32; // MAX_CHIP_NAME_LEN

// struct dcmi_chip_info { unsigned char chip_type[32], chip_name[32], chip_ver[32];
//                         unsigned int aicore_cnt; }
struct dcmi_chip_info
{
  unsigned char chip_type[k_chip_name_len];
  unsigned char chip_name[k_chip_name_len];
  unsigned char chip_ver[k_chip_name_len];
  unsigned int aicore_cnt;
  unsigned char spare[256]; // room should a later release append fields
};

// struct dcmi_hbm_info: memory_size comes first; the rest is not read.
struct dcmi_hbm_info
{
  unsigned long long memory_size;
  unsigned char spare[256];
};

using init_fn = int (*)();
using card_list_fn = int (*)(int*, int*, int);
using device_num_fn = int (*)(int, int*);
using chip_info_fn = int (*)(int, int, dcmi_chip_info*);
using hbm_info_fn = int (*)(int, int, dcmi_hbm_info*);
using logic_id_fn = int (*)(int*, int, int);

std::string text(const unsigned char* field)
{
  return sdk::text_field(reinterpret_cast<const char*>(field), k_chip_name_len);
}

} // namespace

uint64_t dcmi_memory_bytes(unsigned long long memory_size)
{
  // The reference gives MB; one header copy comments bytes. No device has 2^24 MB (16 TiB) of
  // HBM, so a larger value can only be a byte count.
  const auto size = static_cast<uint64_t>(memory_size);
  return size < (uint64_t{1} << 24) ? size << 20 : size;
}

Device dcmi_device(uint32_t card, uint32_t chip, uint32_t logic, const std::string& chip_type,
                   const std::string& chip_name, uint64_t memory_bytes)
{
  Device d;
  d.index = logic;
  d.visibility_id = std::to_string(logic);
  d.name = chip_type + (chip_type.empty() ? "" : " ") + chip_name;
  d.memory_bytes = memory_bytes;
  d.uuid = chip_identity(card, chip); // the same as on the npu-smi path (issue 10.9)
  return d;
}

LibraryResult query_dcmi()
{
  sdk::Library lib({"libdcmi.so", "/usr/local/dcmi/libdcmi.so"});
  init_fn init = nullptr;
  card_list_fn card_list = nullptr;
  device_num_fn device_num = nullptr;
  chip_info_fn chip_info = nullptr;
  hbm_info_fn hbm_info = nullptr;
  logic_id_fn logic_id = nullptr;
  lib.bind("dcmi_init", init);
  // Current headers declare dcmi_get_card_list; dcmi_get_card_num_list (same arguments) stays only
  // as a compatibility wrapper, so it is the fallback.
  const std::string card_list_name = lib.bind_first({k_card_list_names[0], k_card_list_names[1]}, card_list);
  lib.bind("dcmi_get_device_num_in_card", device_num);
  lib.bind("dcmi_get_device_chip_info", chip_info);
  lib.bind("dcmi_get_device_hbm_info", hbm_info);
  lib.bind("dcmi_get_device_logic_id", logic_id);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  result.state = LibraryResult::State::failed; // until every call has answered
  // usable() saw every bind() find its function; each is checked again before any call all the
  // same, so no path here calls a null pointer (the static analyzer cannot see through usable()).
  const char* unbound = init == nullptr         ? "dcmi_init"
                        : card_list == nullptr  ? k_card_list_names[0]
                        : device_num == nullptr ? "dcmi_get_device_num_in_card"
                        : chip_info == nullptr  ? "dcmi_get_device_chip_info"
                        : hbm_info == nullptr   ? "dcmi_get_device_hbm_info"
                        : logic_id == nullptr   ? "dcmi_get_device_logic_id"
                                                : nullptr;
  if (unbound != nullptr) {
    result.detail = lib.soname() + " has no " + unbound;
    return result;
  }

  if (const int rc = init(); rc != 0) {
    result.detail = sdk::call_failed("dcmi_init", rc);
    return result;
  }
  int n_cards = 0;
  int cards[k_max_cards] = {};
  if (const int rc = card_list(&n_cards, cards, k_max_cards); rc != 0 || n_cards < 0 || n_cards > k_max_cards) {
    result.detail = sdk::call_failed(card_list_name, rc);
    return result;
  }
  for (int c = 0; c < n_cards; ++c) {
    const int card = cards[c];
    int n_chips = 0;
    if (const int rc = device_num(card, &n_chips); rc != 0) {
      result.detail = sdk::call_failed("dcmi_get_device_num_in_card", rc) + " for card " + std::to_string(card);
      result.devices.clear();
      return result;
    }
    for (int chip = 0; chip < n_chips; ++chip) {
      const std::string where = " for card " + std::to_string(card) + " chip " + std::to_string(chip);
      int logic = -1;
      dcmi_chip_info info{};
      if (const int rc = logic_id(&logic, card, chip); rc != 0 || logic < 0) {
        result.detail = sdk::call_failed("dcmi_get_device_logic_id", rc) + where;
        result.devices.clear();
        return result;
      }
      if (const int rc = chip_info(card, chip, &info); rc != 0) {
        result.detail = sdk::call_failed("dcmi_get_device_chip_info", rc) + where;
        result.devices.clear();
        return result;
      }
      dcmi_hbm_info hbm{};
      const bool has_hbm = hbm_info(card, chip, &hbm) == 0; // chips without HBM: 0, unknown
      Device d =
          dcmi_device(static_cast<uint32_t>(card), static_cast<uint32_t>(chip), static_cast<uint32_t>(logic),
                      text(info.chip_type), text(info.chip_name), has_hbm ? dcmi_memory_bytes(hbm.memory_size) : 0);
      result.devices.push_back(std::move(d));
    }
  }
  std::sort(result.devices.begin(), result.devices.end(),
            [](const Device& a, const Device& b) { return a.index < b.index; });
  result.state = LibraryResult::State::ok;
  return result;
}

} // namespace zl::backend_ascend
