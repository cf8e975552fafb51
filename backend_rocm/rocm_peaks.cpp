// The spec-sheet peaks of the AMD GPUs this backend lists (the descriptor's peaks, ABI 1.3):
// memory bandwidth and throughput, so that zl summary can say how close an op came to what the
// GPU can do (issue 32; docs/peaks.md). Figures are AMD's own, each with its sheet; a name that
// is none of the table's (an ambiguous name, a card the table does not list) has none: zl never
// guesses a peak.
#include "rocm_devices.hpp"

namespace zl::backend_rocm {

namespace {

using sdk::spelled;

// AMD's figures are dense; FP32 is the vector (non-matrix) peak. A CPX or DPX partition of an
// MI300X reports the card's name: its share is of the whole card (docs/peaks.md).
constexpr zl_peak k_mi300x =
    sdk::sku_peak("AMD Instinct MI300X", 5300, 1307.4, 163.4,
                  "AMD Instinct MI300X Accelerator data sheet, "
                  "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
                  "amd-instinct-mi300x-data-sheet.pdf");
constexpr zl_peak k_mi250x = sdk::sku_peak("AMD Instinct MI250X", 3200, 383, 47.9,
                                           "AMD Instinct MI250X Accelerator, specifications, "
                                           "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html");
constexpr zl_peak k_mi250 = sdk::sku_peak("AMD Instinct MI250", 3200, 362.1, 45.3,
                                          "AMD Instinct MI250 Accelerator, specifications, "
                                          "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html");

// Each name as AMD SMI, amd-smi and rocm-smi report it, then without "AMD " (as the table before
// ABI 1.3 accepted it). Names match whole: "AMD Instinct MI250X" is never "AMD Instinct MI250".
// rocm-smi may name both MI250X and MI250 "AMD Instinct MI250X/MI250": that matches neither.
constexpr zl_peak k_table[] = {
    spelled("AMD Instinct MI300X", k_mi300x),     spelled("Instinct MI300X", k_mi300x),
    spelled("AMD Instinct MI300X OAM", k_mi300x), spelled("Instinct MI300X OAM", k_mi300x),
    spelled("AMD Instinct MI250X", k_mi250x),     spelled("Instinct MI250X", k_mi250x),
    spelled("AMD Instinct MI250", k_mi250),       spelled("Instinct MI250", k_mi250),
};

} // namespace

const zl_peak* peaks()
{
  return k_table;
}

size_t peak_count()
{
  return sizeof(k_table) / sizeof(k_table[0]);
}

} // namespace zl::backend_rocm
