// The spec-sheet peaks of the Huawei Ascend NPUs this backend lists (the descriptor's peaks, ABI
// 1.3; docs/peaks.md): none yet. zl never guesses a peak, and a figure joins the table only with
// the vendor's own sheet to cite, so an Ascend device gets no %BW or %TFLOPS.
#include "ascend_devices.hpp"

namespace zl::backend_ascend {

// Left out for want of a vendor figure (issue 32 asked for them):
// - Huawei Ascend 910B1–B4: Huawei publishes no per-variant bandwidth or FP16 figure for the
//   chips that we could find (its Atlas sheets give the server or card); third-party pages
//   disagree (FP16 280 to 376 TFLOPS, HBM 400 GB/s to 1.6 TB/s). "910B" alone names several.
const zl_peak* peaks()
{
  return nullptr;
}

size_t peak_count()
{
  return 0;
}

} // namespace zl::backend_ascend
