// amd-smi's JSON, the ROCm backend's first tool. Input: `list --json`, k_part_separator,
// `static --json`.
#include "fuzz_util.hpp"
#include "rocm_devices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto parts = zl::fuzz::split_parts(zl::fuzz::as_text(data, size), 2);
  zl::backend_rocm::parse_amd_smi(parts[0], parts[1]);
  zl::backend_rocm::rocr_uuid(parts[0]);
  return 0;
}
