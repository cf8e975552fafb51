// The spec-sheet peaks of the accelerators zl knows by name: memory bandwidth and throughput, so
// that zl summary can say how close an op came to what the device can do (issue 32). Figures are
// the vendors' own, each with its sheet; a name that is not one of the table's (a MIG instance, a
// partition, a card the table does not list) has none: zl never guesses a peak.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace zl::devices {

struct Peak
{
  std::string_view sku;                // "NVIDIA H100 SXM5 80GB"
  double bandwidth_gbps = 0;           // memory bandwidth, GB/s (10^9 bytes a second)
  double fp16_tflops = 0;              // dense (no sparsity) FP16/BF16 on the tensor (matrix) units
  std::optional<double> fp32_tflops{}; // FP32 off the tensor units (vector), where the sheet gives it
  std::string_view source;             // the vendor's sheet: its title and URL
};

// The peak of the device backends report as device_name ("NVIDIA H100 80GB HBM3", "AMD Instinct
// MI300X"): case, spaces, dashes and a leading "NVIDIA"/"AMD" do not matter; anything else must
// be one of the table's names exactly. None for a MIG instance or an unknown name.
std::optional<Peak> spec_peak(std::string_view device_name);

// Every SKU of the table, in its order (for docs and tests).
std::vector<Peak> spec_peaks();

} // namespace zl::devices
