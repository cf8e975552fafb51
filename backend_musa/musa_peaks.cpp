// The spec-sheet peaks of the Moore Threads GPUs this backend lists (the descriptor's peaks, ABI
// 1.3; docs/peaks.md): none yet. zl never guesses a peak, and a figure joins the table only with
// the vendor's own sheet to cite, so a Moore Threads device gets no %BW or %TFLOPS.
#include "musa_devices.hpp"

namespace zl::backend_musa {

// Left out for want of a vendor figure (issue 32 asked for it):
// - Moore Threads MTT S4000: press reports of its launch (io-tech.fi, Tom's Hardware, Dec. 2023)
//   give 768 GB/s GDDR6 and 100 TFLOPS FP16/BF16, 25 TFLOPS FP32, but no Moore Threads product
//   sheet with those figures was found to cite.
const zl_peak* peaks()
{
  return nullptr;
}

size_t peak_count()
{
  return 0;
}

} // namespace zl::backend_musa
