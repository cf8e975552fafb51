// npu-smi's two tables the Ascend backend joins: `info`, k_part_separator, `info -m`.
#include "ascend_devices.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto parts = zl::fuzz::split_parts(zl::fuzz::as_text(data, size), 2);
  const auto table = zl::backend_ascend::parse_npu_smi_info(parts[0]);
  const auto map = zl::backend_ascend::parse_npu_smi_map(parts[1]);
  if (table.ok() && map.ok()) {
    zl::backend_ascend::join_npu_smi(table, map);
  }
  return 0;
}
