#include "devices/peaks.hpp"

#include <array>
#include <cctype>
#include <string>

namespace zl::devices {

namespace {

// NVIDIA's sheets give tensor throughput with 2:4 sparsity (footnote "With sparsity"); the dense
// figure is half of it, and that half is what the table keeps.
constexpr double dense(double sparse_tflops)
{
  return sparse_tflops / 2;
}

constexpr std::string_view k_h100_sheet =
    "NVIDIA H100 Tensor Core GPU Datasheet, "
    "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet";
constexpr std::string_view k_h200_sheet =
    "NVIDIA H200 Tensor Core GPU, specifications, https://www.nvidia.com/en-us/data-center/h200/";
constexpr std::string_view k_a100_sheet = "NVIDIA A100 Tensor Core GPU Datasheet, "
                                          "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                                          "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";

struct Entry
{
  std::array<std::string_view, 2> names; // as backends report them; "" for none
  Peak peak;
};

// Most specific first, although names match whole: "NVIDIA H100 NVL" is never "NVIDIA H100 …".
//
// Left out for want of a vendor figure (issue 32 asked for them):
// - Huawei Ascend 910B1–B4: Huawei publishes no per-variant bandwidth or FP16 figure for the
//   chips that we could find (its Atlas sheets give the server or card); third-party pages
//   disagree (FP16 280 to 376 TFLOPS, HBM 400 GB/s to 1.6 TB/s). "910B" alone names several.
// - Moore Threads MTT S4000: press reports of its launch (io-tech.fi, Tom's Hardware, Dec. 2023)
//   give 768 GB/s GDDR6 and 100 TFLOPS FP16/BF16, 25 TFLOPS FP32, but no Moore Threads product
//   sheet with those figures was found to cite.
const std::array<Entry, 12> k_table{{
    // H100 SXM5 80GB: 3.35 TB/s, FP16 Tensor 1,979 with sparsity, FP32 67.
    {{"h10080gbhbm3", ""}, {"NVIDIA H100 SXM5 80GB", 3350, dense(1979), 67, k_h100_sheet}},
    // H100 PCIe 80GB (the sheet's 2022 edition): 2 TB/s, FP16 Tensor 1,513 with sparsity, FP32 51.
    {{"h100pcie", ""}, {"NVIDIA H100 PCIe 80GB", 2000, dense(1513), 51, k_h100_sheet}},
    // H100 NVL (94 GB, per GPU): 3.9 TB/s, FP16 Tensor 1,671 with sparsity, FP32 60.
    {{"h100nvl", ""}, {"NVIDIA H100 NVL", 3900, dense(1671), 60, k_h100_sheet}},
    // H200 NVL: 4.8 TB/s, FP16 Tensor 1,671 with sparsity, FP32 60.
    {{"h200nvl", ""}, {"NVIDIA H200 NVL 141GB", 4800, dense(1671), 60, k_h200_sheet}},
    // H200 SXM: 4.8 TB/s, FP16 Tensor 1,979 with sparsity, FP32 67.
    {{"h200", ""}, {"NVIDIA H200 SXM 141GB", 4800, dense(1979), 67, k_h200_sheet}},
    // A100: FP16 Tensor 312 dense (624 with sparsity), FP32 19.5; bandwidth per model.
    {{"a100sxm480gb", ""}, {"NVIDIA A100 SXM4 80GB", 2039, 312, 19.5, k_a100_sheet}},
    {{"a100sxm440gb", ""}, {"NVIDIA A100 SXM4 40GB", 1555, 312, 19.5, k_a100_sheet}},
    {{"a10080gbpcie", ""}, {"NVIDIA A100 PCIe 80GB", 1935, 312, 19.5, k_a100_sheet}},
    {{"a100pcie40gb", ""}, {"NVIDIA A100 PCIe 40GB", 1555, 312, 19.5, k_a100_sheet}},
    // AMD's figures are dense; FP32 is the vector (non-matrix) peak. A CPX or DPX partition of an
    // MI300X reports the card's name: its share is of the whole card (docs/peaks.md).
    {{"instinctmi300x", "instinctmi300xoam"},
     {"AMD Instinct MI300X", 5300, 1307.4, 163.4,
      "AMD Instinct MI300X Accelerator data sheet, "
      "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
      "amd-instinct-mi300x-data-sheet.pdf"}},
    // rocm-smi may name both MI250X and MI250 "AMD Instinct MI250X/MI250": that matches neither.
    {{"instinctmi250x", ""},
     {"AMD Instinct MI250X", 3200, 383, 47.9,
      "AMD Instinct MI250X Accelerator, specifications, "
      "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"}},
    {{"instinctmi250", ""},
     {"AMD Instinct MI250", 3200, 362.1, 45.3,
      "AMD Instinct MI250 Accelerator, specifications, "
      "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html"}},
}};

// Lower case letters and digits only, without a leading vendor word: "NVIDIA A100-SXM4-80GB" and
// "A100-SXM4-80GB" (drivers before R470) are one name.
std::string key_of(std::string_view name)
{
  std::string key;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (const std::string_view vendor : {"nvidia", "amd"}) {
    if (key.compare(0, vendor.size(), vendor) == 0) {
      return key.substr(vendor.size());
    }
  }
  return key;
}

// A MIG instance ("NVIDIA A100-SXM4-80GB MIG 1g.10gb") is a slice: the GPU's peak is not its own.
bool names_mig(std::string_view name)
{
  std::string word;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (word == "mig") {
      return true;
    } else {
      word.clear();
    }
  }
  return false;
}

} // namespace

std::optional<Peak> spec_peak(std::string_view device_name)
{
  if (names_mig(device_name)) {
    return std::nullopt;
  }
  const auto key = key_of(device_name);
  if (key.empty()) {
    return std::nullopt;
  }
  for (const auto& e : k_table) {
    for (const auto name : e.names) {
      if (!name.empty() && name == key) {
        return e.peak;
      }
    }
  }
  return std::nullopt;
}

std::vector<Peak> spec_peaks()
{
  std::vector<Peak> out;
  out.reserve(k_table.size());
  for (const auto& e : k_table) {
    out.push_back(e.peak);
  }
  return out;
}

} // namespace zl::devices
