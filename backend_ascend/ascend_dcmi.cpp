// DCMI through dlopen: no CANN SDK at build time, no hard dependency at run time.
// Prototypes and structs: the Ascend 910B DCMI API reference (vendors.md §4.1). Cards and the
// chips in them are addressed as (card_id, device_id), which npu-smi prints as NPU ID and Chip.
#include "ascend_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <algorithm>
#include <cstdio>

namespace zl::backend_ascend {

namespace {

constexpr int k_max_cards = 64;
constexpr size_t k_chip_name_len = 32; // MAX_CHIP_NAME_LEN
constexpr int k_vdie = 1;              // enum dcmi_die_type { NDIE, VDIE, DDIE, INVALID_DIE }
constexpr size_t k_die_words = 5;      // DIE_ID_COUNT

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

struct dcmi_die_id
{
  unsigned int soc_die[k_die_words];
  unsigned char spare[64];
};

using init_fn = int (*)();
using card_list_fn = int (*)(int*, int*, int);
using device_num_fn = int (*)(int, int*);
using chip_info_fn = int (*)(int, int, dcmi_chip_info*);
using hbm_info_fn = int (*)(int, int, dcmi_hbm_info*);
using logic_id_fn = int (*)(int*, int, int);
using die_fn = int (*)(int, int, int, dcmi_die_id*);

std::string text(const unsigned char* field)
{
  return sdk::text_field(reinterpret_cast<const char*>(field), k_chip_name_len);
}

// The VDie ID as npu-smi's board query prints it: "14036E64 00E04F1D …". Empty when all zero.
std::string die_text(const dcmi_die_id& die)
{
  std::string out;
  bool any = false;
  for (unsigned word : die.soc_die) {
    char buf[9];
    std::snprintf(buf, sizeof(buf), "%08X", word);
    out += (out.empty() ? "" : " ") + std::string(buf);
    any = any || word != 0;
  }
  return any ? out : std::string();
}

} // namespace

uint64_t dcmi_memory_bytes(unsigned long long memory_size)
{
  // The reference gives MB; one header copy comments bytes. No device has 2^24 MB (16 TiB) of
  // HBM, so a larger value can only be a byte count.
  const auto size = static_cast<uint64_t>(memory_size);
  return size < (uint64_t{1} << 24) ? size << 20 : size;
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
  lib.bind("dcmi_get_card_num_list", card_list);
  lib.bind("dcmi_get_device_num_in_card", device_num);
  lib.bind("dcmi_get_device_chip_info", chip_info);
  lib.bind("dcmi_get_device_hbm_info", hbm_info);
  lib.bind("dcmi_get_device_logic_id", logic_id);
  LibraryResult result;
  if (!lib.usable(result)) {
    return result;
  }
  result.state = LibraryResult::State::failed; // until every call has answered
  die_fn die = nullptr;
  lib.bind("dcmi_get_device_die_v2", die); // optional: older drivers lack it

  if (const int rc = init(); rc != 0) {
    result.detail = sdk::call_failed("dcmi_init", rc);
    return result;
  }
  int n_cards = 0;
  int cards[k_max_cards] = {};
  if (const int rc = card_list(&n_cards, cards, k_max_cards); rc != 0 || n_cards < 0 || n_cards > k_max_cards) {
    result.detail = sdk::call_failed("dcmi_get_card_num_list", rc);
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
      Device d;
      d.index = static_cast<uint32_t>(logic);
      d.visibility_id = std::to_string(logic);
      d.name = text(info.chip_type) + (text(info.chip_type).empty() ? "" : " ") + text(info.chip_name);
      dcmi_hbm_info hbm{};
      if (hbm_info(card, chip, &hbm) == 0) {
        d.memory_bytes = dcmi_memory_bytes(hbm.memory_size); // chips without HBM: 0, unknown
      }
      dcmi_die_id vdie{};
      if (die != nullptr && die(card, chip, k_vdie, &vdie) == 0) {
        d.uuid = die_text(vdie);
      }
      if (d.uuid.empty()) {
        d.uuid = "npu" + std::to_string(card) + "-chip" + std::to_string(chip);
      }
      result.devices.push_back(std::move(d));
    }
  }
  std::sort(result.devices.begin(), result.devices.end(),
            [](const Device& a, const Device& b) { return a.index < b.index; });
  result.state = LibraryResult::State::ok;
  return result;
}

} // namespace zl::backend_ascend
