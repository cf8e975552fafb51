// The AMD ROCm backend: what differs about AMD GPUs, as one static descriptor.
// Every string here is sourced in README.md (this folder) from docs/vendor-facts.md §3.
#include "rocm_devices.hpp"
#include "rocm_telemetry.hpp"

#include <zl/backend_sdk.hpp>

namespace {

const char* const k_aliases[] = {"amd", "hip", nullptr};

// Exactly one visibility variable is set: ROCR_VISIBLE_DEVICES, applied by ROCr beneath HIP.
// The HIP-level ones are removed, because HIP masks again on top of ROCR and the same physical
// index in both can leave zero GPUs ("No HIP GPUs are available", docs/vendor-facts.md §3.2).
// GPU_DEVICE_ORDINAL (ROCclr) is a third mask of the same kind.
const char* const k_unset[] = {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", nullptr};

// Capture-failure wording, matched as substrings of the exception text. The classifier (not here)
// tries the lists most severe first: device_fault, then poisoned, then refused. No string appears
// in two lists. HIP shares CUDA's codes and texts 900-908 (docs/vendor-facts.md §3.4); PyTorch on
// ROCm prints "HIP error: <hipGetErrorString>" and names the enum in its "Search for `hipError…'"
// line, so both spellings match.
//
// refused: the capture was not allowed; the op falls back to the direct timer.
const char* const k_refused[] = {
    "operation not permitted when stream is capturing", // 900, hipGetErrorString (lower case)
    "Operation not permitted when stream is capturing", // 900, the HIP reference table's spelling
    "hipErrorStreamCaptureUnsupported",                 // 900, in PyTorch's "Search for" line
    // 901: a capture an earlier illegal call already invalidated; refused, as on CUDA.
    "operation failed due to a previous error during capture", "hipErrorStreamCaptureInvalidated",
    "operation would result in a merge of separate capture sequences", // 902
    "hipErrorStreamCaptureMerge",
    "capture was not ended in the same stream as it began", // 903
    "hipErrorStreamCaptureUnmatched",
    "capturing stream has unjoined work", // 904
    "hipErrorStreamCaptureUnjoined",
    "dependency created on uncaptured work in another stream", // 905
    "hipErrorStreamCaptureIsolation",
    "operation would make the legacy stream depend on a capturing blocking stream", // 906
    "hipErrorStreamCaptureImplicit",
    "operation not permitted on an event last recorded in a capturing stream", // 907
    "hipErrorCapturedEvent",
    "attempt to terminate a thread-local capture sequence from another thread", // 908
    "hipErrorStreamCaptureWrongThread",
    // PyTorch's RNG guard keeps its CUDA wording on ROCm builds (torch.cuda is HIP there).
    "during CUDA graph capture", "must be captured on a non-default stream",
    // Triton 3.1 do_bench_cudagraph on the default stream (docs/vendor-facts.md §5).
    "Cannot capture graph in default stream", nullptr};

// device_fault: the kernel failed on the device; re-raise, never report a latency.
// hipGetErrorString texts of hipErrorIllegalAddress, hipErrorLaunchFailure and hipErrorAssert,
// with PyTorch's "HIP error: " prefix.
const char* const k_device_fault[] = {"HIP error: an illegal memory access was encountered",
                                      "HIP error: unspecified launch failure",
                                      "HIP error: device-side assert triggered", nullptr};

// poisoned: none. Nothing in our sources shows a ROCm capture failure that leaves the context
// unusable; an entry belongs here once it has been seen on a device.

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d = zl::sdk::empty_descriptor();
  d.name = "rocm";
  d.aliases = k_aliases;
  d.version = "0.1.0";
  d.description = "AMD GPUs through ROCm/HIP; AMD SMI, amd-smi or rocm-smi enumeration, HIP graph timing";
  d.flaggems_vendor = "amd";
  d.torch_module = "torch.cuda"; // PyTorch's ROCm build reuses torch.cuda (torch.version.hip set)
  d.torch_device = "cuda";
  d.visibility_var = "ROCR_VISIBLE_DEVICES"; // takes "GPU-<16hex>" or an index (docs/vendor-facts.md §3.2)
  d.visibility_unset = k_unset;
  d.capabilities = ZL_CAP_GRAPH_CAPTURE | ZL_CAP_PROFILER_TIMER;
  d.graph_class = "CUDAGraph"; // torch.cuda.CUDAGraph captures HIP graphs (docs/vendor-facts.md §3.3)
  d.capture = {k_refused, k_device_fault, zl::sdk::k_no_strings};
  // FlagTree has no FLAGTREE_AMD_* knob: AMD builds read the generic FLAGTREE_RLC_ENHANCE
  // (docs/vendor-facts.md §6), which has no <VENDOR> part, so the token stays empty.
  d.enumerate_devices = zl::sdk::guarded_enumerate<zl::backend_rocm::enumerate>;
  d.filter_visible = zl::sdk::guarded_filter<zl::backend_rocm::filter_visible>;
  d.read_telemetry = zl::sdk::guarded_telemetry<zl::backend_rocm::read_telemetry>;
  // The spec-sheet peaks of the GPUs AMD SMI, amd-smi and rocm-smi name (rocm_peaks.cpp).
  d.peaks = zl::backend_rocm::peaks();
  d.peak_count = zl::backend_rocm::peak_count();
  return d;
}

} // namespace

ZL_BACKEND_ENTRY(make_descriptor())
