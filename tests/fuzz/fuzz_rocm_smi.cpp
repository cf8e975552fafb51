// rocm-smi's JSON, the ROCm backend's fallback when amd-smi is absent.
#include "fuzz_util.hpp"
#include "rocm_devices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  zl::backend_rocm::parse_rocm_smi(zl::fuzz::as_text(data, size));
  zl::backend_rocm::rocr_serial_in_asic_info(data, size);
  return 0;
}
