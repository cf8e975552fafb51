// The Huawei Ascend backend: what differs about Ascend NPUs, as one static descriptor.
// Every string here is sourced in README.md (this folder) from docs/vendor-facts.md §4.
#include "ascend_devices.hpp"
#include "ascend_telemetry.hpp"

#include <zl/backend_sdk.hpp>

namespace {

const char* const k_aliases[] = {"npu", "huawei", nullptr};

// Capture-failure wording, matched as substrings of the exception text. The classifier (not
// here) tries the lists most severe first: device_fault, then poisoned, then refused. No string
// appears in two lists. torch_npu reports ACL failures as "… NPU function error: <call>, error
// code is <n>"; the codes are CANN's rt_error_codes.h (docs/vendor-facts.md §4.4).
//
// refused: the capture was not allowed; the op falls back to the direct timer.
const char* const k_refused[] = {
    // torch_npu's guard helper: "<attempt> during NPU graph capture. If you need this call…"
    "during NPU graph capture",
    // aclop operators cannot be captured, only aclnn ones (the message names the op).
    "Cannot run aclop operators during NPU graph capture",
    // NPUGraph::capture_begin preconditions.
    "must be captured on a non-default stream", "Do not support TASK_QUEUE_ENABLE = 2 during NPU graph capture",
    // NPUGeneratorImpl RNG guards, the NPU side of the dropout/rand fallback.
    "while in capture mode", "can be called during stream capture only if new seed is the same as the original seed",
    // The runtime refusing one operation inside a capture (rtMemcpy in vllm-ascend#10309).
    "the current capture mode does not support this operation",
    "error code is 107030", // ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT
    // Per-operation capture errors, the counterparts of CUDA's refused 902-908:
    "error code is 107024", // ACL_ERROR_RT_CAPTURE_DEPENDENCY (905's "dependency … uncaptured work")
    "error code is 107027", // ACL_ERROR_RT_STREAM_CAPTURED (stream is captured)
    "error code is 107028", // ACL_ERROR_RT_EVENT_CAPTURED (907, event is captured)
    "error code is 107031", // ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT (906, implicit default-stream dependency)
    "error code is 107032", // ACL_ERROR_STREAM_CAPTURE_CONFLICT (902-like, streams cannot capture together)
    "error code is 107036", // ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED (903, capture not begun in this stream)
    nullptr};

// device_fault: the kernel failed on the device; re-raise, never report a latency. Only the AI
// Core exception and timeout codes are listed: the generic "EZ9999/EE9999: Inner Error!" and
// "ERR00100 PTA call acl api failed" also accompany capture failures (vllm-ascend#13792), so
// they say nothing about the kernel.
const char* const k_device_fault[] = {
    "error code is 507015", // ACL_ERROR_RT_AICORE_EXCEPTION: the AI Core task faulted
    "error code is 507014", // ACL_ERROR_RT_AICORE_TIMEOUT: the AI Core task never finished
    nullptr};

// poisoned: the capture model itself could not be closed (AclmdlRICaptureEnd fails), so the
// stream's capture state is unknown and a fallback would time inside it. Judgement, not yet
// observed on a device: revisit with the first real capture failure.
const char* const k_poisoned[] = {
    "error code is 507903", // ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED: capture status invalidated
    "error code is 107025", // ACL_ERROR_RT_STREAM_UNJOINED: invalid capture model, at capture end
    // The runtime text that accompanies 107025 at AclmdlRICaptureEnd (vllm-ascend#13792).
    "capture model contains a stream that was not joined to the original stream", nullptr};

zl_backend_descriptor make_descriptor()
{
  zl_backend_descriptor d = zl::sdk::empty_descriptor();
  d.name = "ascend";
  d.aliases = k_aliases;
  d.version = "0.1.0";
  d.description = "Huawei Ascend NPUs through CANN (torch_npu); DCMI or npu-smi enumeration, NPUGraph timing";
  d.flaggems_vendor = "ascend";
  d.torch_module = "torch.npu";
  d.torch_device = "npu";
  // The CANN runtime's variable, taking chip logic IDs. Not ASCEND_VISIBLE_DEVICES: that is the
  // Ascend Docker Runtime's list of physical chips to mount, read when a container starts.
  d.visibility_var = zl::backend_ascend::k_visibility_var;
  // Nothing is unset: ASCEND_VISIBLE_DEVICES inside a container describes what was mounted, and
  // removing it from a child changes nothing the runtime reads; CUDA_VISIBLE_DEVICES has no
  // effect on Ascend (docs/vendor-facts.md §4.2).
  d.capabilities = ZL_CAP_GRAPH_CAPTURE | ZL_CAP_PROFILER_TIMER;
  d.graph_class = "NPUGraph"; // torch_npu.npu.NPUGraph (ACLGraph); transfer_to_npu does not alias CUDAGraph
  d.capture = {k_refused, k_device_fault, k_poisoned};
  // FlagTree's ascend backend (triton_v3.2.x) has no FLAGTREE_ASCEND_* knob in our sources
  // (docs/vendor-facts.md §6), so there is no token to set.
  d.enumerate_devices = zl::sdk::guarded_enumerate<zl::backend_ascend::enumerate>;
  d.filter_visible = zl::sdk::guarded_filter<zl::backend_ascend::filter_visible>;
  d.read_telemetry = zl::sdk::guarded_telemetry<zl::backend_ascend::read_telemetry>;
  // None: no Huawei per-chip sheet found to cite (ascend_peaks.cpp).
  d.peaks = zl::backend_ascend::peaks();
  d.peak_count = zl::backend_ascend::peak_count();
  return d;
}

} // namespace

ZL_BACKEND_ENTRY(make_descriptor())
