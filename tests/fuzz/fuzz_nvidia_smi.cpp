// nvidia-smi's --query-gpu CSV, the CUDA backend's fallback when NVML cannot be opened.
#include "cuda_devices.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  zl::backend_cuda::parse_nvidia_smi_csv(zl::fuzz::as_text(data, size));
  return 0;
}
