// The spec-sheet peaks of the devices backends name: memory bandwidth and throughput, so that zl
// summary can say how close an op came to what the device can do (issue 32). The core holds no
// figure of its own: each backend's descriptor carries its vendor's table (zl_peak, ABI 1.3), and
// this file finds a device's entry in the tables of the modules zl discovers. A name that is none
// of the tables' (a slice of a device, a card no table lists) has none: zl never guesses a peak.
#pragma once

#include <zl/backend_abi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zl::devices {

struct Peak
{
  std::string_view sku;                // the product the sheet names
  double bandwidth_gbps = 0;           // memory bandwidth, GB/s (10^9 bytes a second)
  double fp16_tflops = 0;              // dense (no sparsity) FP16/BF16 on the tensor (matrix) units
  std::optional<double> fp32_tflops{}; // FP32 off the tensor units (vector), where the sheet gives it
  std::string_view source;             // the vendor's sheet: its title and URL
};

// One backend's table, as its descriptor gives it: entries owned by the module, which zl never
// unloads, so a Peak's views into them stay valid for the whole process.
struct PeakTable
{
  const zl_peak* entries = nullptr;
  std::size_t count = 0;
};

// The peak of the device a backend reports as device_name, from the first entry of the first
// table whose device_name matches: case and every character that is not a letter or digit do not
// matter; anything else must be one of the tables' names exactly. None for a name holding the
// word "MIG" (a slice of the device: its peak is not the device's) or a name no table lists.
std::optional<Peak> spec_peak(std::string_view device_name, const std::vector<PeakTable>& tables);

// Every SKU of the tables once (its first entry), in their order (for docs and tests).
std::vector<Peak> spec_peaks(const std::vector<PeakTable>& tables);

// The --backend-path folders zl was given: the peak tables are looked for where `zl backends`
// looks (these, then ZL_BACKEND_PATH, then the install). Call before the first spec_peak.
void search_backend_paths(std::vector<std::string> cli_paths);

// The tables of the backend modules found there (those that loaded, in search order), discovered
// once per process; none where the search folders cannot be read.
const std::vector<PeakTable>& backend_peak_tables();

// spec_peak and spec_peaks over backend_peak_tables().
std::optional<Peak> spec_peak(std::string_view device_name);
std::vector<Peak> spec_peaks();

} // namespace zl::devices
