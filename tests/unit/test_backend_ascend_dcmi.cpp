// DCMI (issue 10.9, 10.23): one identity per chip whichever source answered, and the card list
// bound by its current name before the compatibility one.
#include "ascend_devices.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>

using namespace zl::backend_ascend;

TEST_CASE("zl::backend_ascend one identity per chip")
{
  // The same host through npu-smi (the 24.1.RC2 documentation sample) and as DCMI describes it.
  const auto table = parse_npu_smi_info(zl::test::read_fixture(
      "smi/real/npu-smi/gpustack-huaweidoc-atlas800-9010-910x8-npusmi241rc2-info-with-processes.txt"));
  const auto map = parse_npu_smi_map(
      zl::test::read_fixture("smi/real/npu-smi/gpustack-huaweidoc-atlas800-9010-910ax8-npusmi241rc2-info-m.txt"));
  const auto smi = join_npu_smi(table, map);
  REQUIRE(smi.ok());
  REQUIRE(smi.devices.size() == 8);
  for (uint32_t card = 0; card < 8; ++card) {
    const auto dcmi = dcmi_device(card, 0, card, "Ascend", "910A", 32ULL << 30);
    CAPTURE(card);
    CHECK(dcmi.uuid == smi.devices[card].uuid);
    CHECK(dcmi.index == smi.devices[card].index);
    CHECK(dcmi.visibility_id == smi.devices[card].visibility_id);
    CHECK(dcmi.name == smi.devices[card].name);
  }
  CHECK(chip_identity(3, 1) == "npu3-chip1");
}

TEST_CASE("zl::backend_ascend DCMI card list names")
{
  CHECK(std::string(k_card_list_names[0]) == "dcmi_get_card_list");
  CHECK(std::string(k_card_list_names[1]) == "dcmi_get_card_num_list");
  // bind_first takes the first name the library has, and names them all when it has none.
  zl::sdk::Library libc({"libc.so.6"});
  REQUIRE(libc.loaded());
  size_t (*fn)(const char*) = nullptr;
  CHECK(libc.bind_first({"zl_no_such_function", "strlen"}, fn) == "strlen");
  REQUIRE(static_cast<bool>(fn));
  CHECK(fn("four") == 4);
  CHECK(libc.missing().empty());
  CHECK(libc.bind_first({"zl_no_such_a", "zl_no_such_b"}, fn).empty());
  CHECK_FALSE(static_cast<bool>(fn));
  CHECK(libc.missing() == "zl_no_such_a or zl_no_such_b");
}
