// The NVIDIA CUDA backend: what differs about NVIDIA GPUs, as one static descriptor.
// Every string here is sourced in README.md (this folder) from docs/vendor-facts.md §1.
#include "cuda_devices.hpp"
#include "cuda_telemetry.hpp"

#include <zl/backend_sdk.hpp>

namespace {

const char* const k_aliases[] = {"nvidia", nullptr};

// Capture-failure wording, matched as substrings of the exception text. The classifier (not
// here) tries the lists most severe first: device_fault, then poisoned, then refused. No string
// appears in two lists.
//
// refused: the capture was not allowed; the op falls back to the direct timer.
const char* const k_refused[] = {
    // cudaGetErrorString texts of the stream-capture codes 900-908 (docs/vendor-facts.md §1.4).
    "operation not permitted when stream is capturing", // 900 Unsupported
    // 901 Invalidated reports a capture that an earlier illegal call already invalidated; the
    // earlier call is the refusal, so 901 is refused too. The earlier Python harness guessed no
    // poisoning wording for CUDA, so it is not poisoned.
    "operation failed due to a previous error during capture",                      // 901 Invalidated
    "operation would result in a merge of separate capture sequences",              // 902 Merge
    "capture was not ended in the same stream as it began",                         // 903 Unmatched
    "capturing stream has unjoined work",                                           // 904 Unjoined
    "dependency created on uncaptured work in another stream",                      // 905 Isolation
    "operation would make the legacy stream depend on a capturing blocking stream", // 906
    "operation not permitted on an event last recorded in a capturing stream",      // 907
    "attempt to terminate a thread-local capture sequence from another thread",     // 908
    // PyTorch guards: "Cannot call CUDAGeneratorImpl::current_seed during CUDA graph capture…"
    "during CUDA graph capture",
    // PyTorch: "CUDA graphs must be captured on a non-default stream."
    "must be captured on a non-default stream",
    // Triton 3.1 do_bench_cudagraph on the default stream (docs/vendor-facts.md §5).
    "Cannot capture graph in default stream", nullptr};

// device_fault: the kernel itself failed on the device; re-raise, never report a latency.
// These are the CUDA runtime's own texts for illegal address, assert, launch failure,
// misalignment and illegal instruction (cudaErrorIllegalAddress, cudaErrorAssert,
// cudaErrorLaunchFailure, cudaErrorMisalignedAddress, cudaErrorIllegalInstruction).
const char* const k_device_fault[] = {"an illegal memory access was encountered",
                                      "device-side assert triggered",
                                      "unspecified launch failure",
                                      "misaligned address",
                                      "an illegal instruction was encountered",
                                      nullptr};

// poisoned: none. The earlier Python harness carried CUDA's marker list over unchanged and guessed
// no poisoning wording for it; a CUDA entry belongs here only once it has been seen on a device.

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d = zl::sdk::empty_descriptor();
  d.name = "cuda";
  d.aliases = k_aliases;
  d.version = "0.1.0";
  d.description = "NVIDIA GPUs through CUDA; NVML or nvidia-smi enumeration, graph-capture timing";
  d.flaggems_vendor = "nvidia";
  d.torch_module = "torch.cuda";
  d.torch_device = "cuda";
  // Pinned by UUID (visibility_id): robust under MPS and container remapping (docs/vendor-facts.md
  // §1.2). Nothing is unset.
  d.visibility_var = "CUDA_VISIBLE_DEVICES";
  d.capabilities = ZL_CAP_GRAPH_CAPTURE | ZL_CAP_PROFILER_TIMER;
  d.graph_class = "CUDAGraph";
  d.capture = {k_refused, k_device_fault, zl::sdk::k_no_strings};
  // FlagTree has no FLAGTREE_NVIDIA_* knob: NVIDIA builds read the generic FLAGTREE_RLC_ENHANCE
  // (docs/vendor-facts.md §6), which has no <VENDOR> part, so the token stays empty.
  d.enumerate_devices = zl::sdk::guarded_enumerate<zl::backend_cuda::enumerate>;
  d.filter_visible = zl::sdk::guarded_filter<zl::backend_cuda::filter_visible>;
  // NVML, else nvidia-smi --query-gpu (docs/vendor-facts.md §1.5).
  d.read_telemetry = zl::sdk::guarded_telemetry<zl::backend_cuda::read_telemetry>;
  // The spec-sheet peaks of the GPUs NVML and nvidia-smi name (cuda_peaks.cpp, docs/peaks.md).
  d.peaks = zl::backend_cuda::peaks();
  d.peak_count = zl::backend_cuda::peak_count();
  return d;
}

} // namespace

ZL_BACKEND_ENTRY(make_descriptor())
