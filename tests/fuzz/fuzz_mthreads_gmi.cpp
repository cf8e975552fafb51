// mthreads-gmi's two answers the MUSA backend reads: the --query-gpu CSV and `-q`.
#include "fuzz_util.hpp"
#include "musa_devices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto text = zl::fuzz::as_text(data, size);
  zl::backend_musa::parse_gmi_csv(text);
  zl::backend_musa::parse_gmi_query(text);
  std::uint64_t bytes = 0;
  zl::backend_musa::parse_memory(text, bytes);
  return 0;
}
