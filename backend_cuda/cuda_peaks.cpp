// The spec-sheet peaks of the NVIDIA GPUs this backend lists (the descriptor's peaks, ABI 1.3):
// memory bandwidth and throughput, so that zl summary can say how close an op came to what the
// GPU can do (issue 32; docs/peaks.md). Figures are NVIDIA's own, each with its sheet; a name
// that is none of the table's (a MIG instance, a vGPU profile, a card the table does not list)
// has none: zl never guesses a peak.
#include "cuda_devices.hpp"

namespace zl::backend_cuda {

namespace {

// NVIDIA's sheets give tensor throughput with 2:4 sparsity (footnote "With sparsity"); the dense
// figure is half of it, and that half is what the table keeps.
constexpr double dense(double sparse_tflops)
{
  return sparse_tflops / 2;
}

constexpr const char* k_h100_sheet = "NVIDIA H100 Tensor Core GPU Datasheet, "
                                     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet";
constexpr const char* k_h200_sheet =
    "NVIDIA H200 Tensor Core GPU, specifications, https://www.nvidia.com/en-us/data-center/h200/";
constexpr const char* k_a100_sheet = "NVIDIA A100 Tensor Core GPU Datasheet, "
                                     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
                                     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";

using sdk::spelled;

// H100 SXM5 80GB: 3.35 TB/s, FP16 Tensor 1,979 with sparsity, FP32 67.
constexpr zl_peak k_h100_sxm5 = sdk::sku_peak("NVIDIA H100 SXM5 80GB", 3350, dense(1979), 67, k_h100_sheet);
// H100 PCIe 80GB (the sheet's 2022 edition): 2 TB/s, FP16 Tensor 1,513 with sparsity, FP32 51.
constexpr zl_peak k_h100_pcie = sdk::sku_peak("NVIDIA H100 PCIe 80GB", 2000, dense(1513), 51, k_h100_sheet);
// H100 NVL (94 GB, per GPU): 3.9 TB/s, FP16 Tensor 1,671 with sparsity, FP32 60.
constexpr zl_peak k_h100_nvl = sdk::sku_peak("NVIDIA H100 NVL", 3900, dense(1671), 60, k_h100_sheet);
// H200 NVL: 4.8 TB/s, FP16 Tensor 1,671 with sparsity, FP32 60.
constexpr zl_peak k_h200_nvl = sdk::sku_peak("NVIDIA H200 NVL 141GB", 4800, dense(1671), 60, k_h200_sheet);
// H200 SXM: 4.8 TB/s, FP16 Tensor 1,979 with sparsity, FP32 67.
constexpr zl_peak k_h200_sxm = sdk::sku_peak("NVIDIA H200 SXM 141GB", 4800, dense(1979), 67, k_h200_sheet);
// A100: FP16 Tensor 312 dense (624 with sparsity), FP32 19.5; bandwidth per model.
constexpr zl_peak k_a100_sxm4_80 = sdk::sku_peak("NVIDIA A100 SXM4 80GB", 2039, 312, 19.5, k_a100_sheet);
constexpr zl_peak k_a100_sxm4_40 = sdk::sku_peak("NVIDIA A100 SXM4 40GB", 1555, 312, 19.5, k_a100_sheet);
constexpr zl_peak k_a100_pcie_80 = sdk::sku_peak("NVIDIA A100 PCIe 80GB", 1935, 312, 19.5, k_a100_sheet);
constexpr zl_peak k_a100_pcie_40 = sdk::sku_peak("NVIDIA A100 PCIe 40GB", 1555, 312, 19.5, k_a100_sheet);

// Each name as NVML and nvidia-smi report it, then without "NVIDIA ": drivers before R470 left
// the prefix out ("A100-SXM4-80GB"). Names match whole, so "NVIDIA H100 NVL" is never the SXM5's
// "NVIDIA H100 80GB HBM3", nor "NVIDIA H200 NVL" the H200 SXM's "NVIDIA H200".
constexpr zl_peak k_table[] = {
    spelled("NVIDIA H100 80GB HBM3", k_h100_sxm5),
    spelled("H100 80GB HBM3", k_h100_sxm5),
    spelled("NVIDIA H100 PCIe", k_h100_pcie),
    spelled("H100 PCIe", k_h100_pcie),
    spelled("NVIDIA H100 NVL", k_h100_nvl),
    spelled("H100 NVL", k_h100_nvl),
    spelled("NVIDIA H200 NVL", k_h200_nvl),
    spelled("H200 NVL", k_h200_nvl),
    spelled("NVIDIA H200", k_h200_sxm),
    spelled("H200", k_h200_sxm),
    spelled("NVIDIA A100-SXM4-80GB", k_a100_sxm4_80),
    spelled("A100-SXM4-80GB", k_a100_sxm4_80),
    spelled("NVIDIA A100-SXM4-40GB", k_a100_sxm4_40),
    spelled("A100-SXM4-40GB", k_a100_sxm4_40),
    spelled("NVIDIA A100 80GB PCIe", k_a100_pcie_80),
    spelled("A100 80GB PCIe", k_a100_pcie_80),
    spelled("NVIDIA A100-PCIE-40GB", k_a100_pcie_40),
    spelled("A100-PCIE-40GB", k_a100_pcie_40),
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

} // namespace zl::backend_cuda
