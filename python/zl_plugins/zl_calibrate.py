"""zl calibrate's measurement: the device's own peaks, measured once through its torch.

Run by `zl calibrate` (never by pytest) as `python -m zl_calibrate --device-type T
[--device-module M] --copy-mib N --gemm-n N`, with the device pinned by the backend's visibility
variable. Prints one JSON object on standard output:

- copy: a device-to-device copy of N MiB (torch.Tensor.copy_), counted as N MiB read plus N MiB
  written a call (as STREAM's copy and nvbench count it), the best of `reps` rounds of `calls`
  copies, each round timed from one synchronize to the next;
- gemm: torch.matmul of two n x n matrices (float16 on an accelerator, float32 on the host, whose
  float16 matmul is not what a CPU is rated for), 2 n^3 flops a call, the best of its rounds.

The best round, not the median: a peak is what the device can reach, and every slowdown (a
clock ramping up, another process) only lowers a round. Errors go to standard error with exit
status 3 (torch missing), 4 (the device cannot be used) or 5 (a measurement failed).
"""
import argparse
import importlib
import json
import sys
import time

REPS = 5


def parse_args(argv):
    p = argparse.ArgumentParser(prog="zl_calibrate")
    p.add_argument("--device-type", required=True, help="torch device type: cuda, musa, npu, cpu")
    p.add_argument("--device-module", default="", help="its device module (torch.cuda); empty for the host")
    p.add_argument("--copy-mib", type=int, required=True)
    p.add_argument("--gemm-n", type=int, required=True)
    return p.parse_args(argv)


def timed_best(fn, sync, calls):
    """The fastest of REPS rounds of `calls` calls, in seconds per call, after one warm-up round."""
    for _ in range(calls):
        fn()
    sync()
    best = float("inf")
    for _ in range(REPS):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def device_of(torch, args):
    module = importlib.import_module(args.device_module) if args.device_module else None
    if module is not None and hasattr(module, "is_available") and not module.is_available():
        raise RuntimeError(f"{args.device_module}.is_available() is False")
    sync = module.synchronize if module is not None and hasattr(module, "synchronize") else (lambda: None)
    name = ""
    if module is not None and hasattr(module, "get_device_name"):
        name = module.get_device_name(0)
    return torch.device(args.device_type, 0) if module is not None else torch.device(args.device_type), sync, name


def measure(torch, device, sync, args):
    nbytes = args.copy_mib << 20
    src = torch.empty(nbytes, dtype=torch.uint8, device=device).fill_(1)
    dst = torch.empty_like(src)
    copy_s = timed_best(lambda: dst.copy_(src), sync, 10)
    del src, dst
    dtype = torch.float32 if device.type == "cpu" else torch.float16
    n = args.gemm_n
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    gemm_s = timed_best(lambda: torch.matmul(a, b), sync, 5)
    return {
        "copy_bytes": nbytes,
        "copy_s": copy_s,
        "copy_gbps": 2 * nbytes / copy_s / 1e9,
        "gemm_n": n,
        "gemm_dtype": str(dtype).replace("torch.", ""),
        "gemm_s": gemm_s,
        "gemm_tflops": 2 * n ** 3 / gemm_s / 1e12,
        "reps": REPS,
        "timer": "perf_counter between synchronize calls",
    }


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
    except ImportError as e:
        print(f"torch cannot be imported: {e}", file=sys.stderr)
        return 3
    try:
        device, sync, name = device_of(torch, args)
    except Exception as e:  # the device is the user's to fix: say what failed
        print(f"the device {args.device_type} cannot be used: {type(e).__name__}: {e}", file=sys.stderr)
        return 4
    try:
        result = measure(torch, device, sync, args)
    except Exception as e:
        print(f"the measurement failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 5
    result.update({"torch": torch.__version__, "torch_device_name": name})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
