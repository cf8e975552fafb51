/* zl backend ABI: the only contract between the zl core and a vendor backend module.
 *
 * A backend is a shared object named libzl_backend_<name>.so that exports exactly one
 * symbol, ZL_BACKEND_ENTRY_POINT, returning a pointer to a static descriptor. Nothing of C++
 * crosses this boundary: no exceptions, no std types, no allocator. Strings are UTF-8,
 * NUL-terminated; string lists are NULL-terminated arrays of pointers.
 *
 * Ownership and lifetime: everything a descriptor points to is owned by the module and must stay
 * valid and unchanged for as long as the module is loaded. zl never unloads a module while the
 * process lives, so static storage is the norm.
 *
 * Evolution: the descriptor is append-only. A new field goes at the end and raises
 * ZL_ABI_MINOR; the core reads it only when struct_size says the module has it. A module built
 * against an older minor of the same major loads in a newer core. Removing, reordering or
 * retyping a field raises ZL_ABI_MAJOR, and the core refuses a module of another major.
 * Every field is marked with the ABI version that introduced it.
 */
#ifndef ZL_BACKEND_ABI_H
#define ZL_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZL_ABI_MAJOR 1
#define ZL_ABI_MINOR 3

/* The one symbol a module exports. */
#define ZL_BACKEND_ENTRY_POINT "zl_backend_get_descriptor"

#if defined(__GNUC__)
#define ZL_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define ZL_BACKEND_EXPORT
#endif

/* Status codes returned across the ABI. */
typedef enum zl_status {
  ZL_OK = 0,
  ZL_ERR_UNAVAILABLE = 1, /* the vendor stack is absent or found no device; reason says why */
  ZL_ERR_TOOL_FAILED = 2, /* a vendor tool or library answered with an error; reason says which */
  ZL_ERR_PARSE = 3,       /* a vendor tool's output could not be understood; reason quotes it */
  ZL_ERR_INTERNAL = 4     /* anything else; reason says what */
} zl_status;

/* Capability flags (zl_backend_descriptor.capabilities). */
#define ZL_CAP_GRAPH_CAPTURE (UINT64_C(1) << 0)  /* device graphs can time a kernel (timer=graph) */
#define ZL_CAP_PROFILER_TIMER (UINT64_C(1) << 1) /* torch.profiler reports device kernel time */
#define ZL_CAP_HOST_FALLBACK (UINT64_C(1) << 2)  /* the host default when no backend finds devices */

/* Services the core lends a backend for the duration of one call. */
typedef struct zl_host_api
{
  uint32_t struct_size; /* sizeof(zl_host_api) as the core knows it; since 1.0 */
  void* ctx;            /* opaque core state, passed back to every function; since 1.0 */

  /* Runs a program without a shell and captures its standard output.
   * argv: NULL-terminated; argv[0] is looked up on PATH unless it contains '/'.
   * timeout_ms: the program is killed after this many milliseconds.
   * sink(sink_ctx, data, size) receives standard output in chunks, in order.
   * exit_code: the program's exit status, or 128+signal when it was killed.
   * On ZL_ERR_UNAVAILABLE (program not found, not executable) or ZL_ERR_TOOL_FAILED (killed on
   * timeout), reason receives a sentence; on ZL_OK with a non-zero exit_code, the last line the
   * program wrote to standard error (possibly empty). Truncated to reason_size, always
   * NUL-terminated.
   * since 1.0 */
  zl_status (*run_program)(void* ctx, const char* const* argv, uint32_t timeout_ms,
                           void (*sink)(void* sink_ctx, const char* data, size_t size), void* sink_ctx, int* exit_code,
                           char* reason, size_t reason_size);

  /* Reads an environment variable of the zl process; NULL when unset. The pointer is valid
   * until the call into the backend returns. since 1.0 */
  const char* (*get_env)(void* ctx, const char* name);
} zl_host_api;

/* One device, as the vendor's management library or SMI tool reports it. The layout of this
 * struct is frozen for ABI major 1; per-device facts added later get a new struct. */
typedef struct zl_device_info
{
  uint32_t index;         /* physical index in the vendor tool's numbering (ignores visibility) */
  uint32_t reserved;      /* zero */
  uint64_t memory_bytes;  /* total device memory in bytes; 0 when unknown */
  char uuid[96];          /* stable identity, as the vendor spells it (GPU-…, hex serial, die ID) */
  char name[96];          /* product name */
  char visibility_id[96]; /* what the visibility variable takes to pin this device */
} zl_device_info;

/* The answer of enumerate_devices. The core owns this struct and the devices array. */
typedef struct zl_enumeration
{
  uint32_t struct_size;    /* sizeof(zl_enumeration) as the core knows it; since 1.0 */
  uint32_t capacity;       /* entries in devices; since 1.0 */
  zl_device_info* devices; /* core-owned array the backend fills; since 1.0 */
  uint32_t count;          /* out: devices found; only min(count, capacity) are filled; since 1.0 */
  uint32_t reserved;       /* zero; since 1.0 */
  char source[64];         /* out: what answered ("NVML", "nvidia-smi"); since 1.0 */
  char reason[512];        /* out: why no device was found, when count is 0; since 1.0 */
} zl_enumeration;

/* One device the inherited visibility mask leaves visible (filter_visible). since 1.1 */
typedef struct zl_visible_device
{
  uint32_t device;   /* position in the devices array filter_visible was given */
  uint32_t reserved; /* zero */
  char pin[96];      /* the value of visibility_var that selects this device and nothing outside the
                      * inherited mask (one of the mask's own entries, or a UUID form the runtime
                      * accepts): zl sets it in the child, replacing the inherited value */
} zl_visible_device;

/* The answer of filter_visible. The core owns this struct and the visible array. since 1.1 */
typedef struct zl_visibility
{
  uint32_t struct_size;       /* sizeof(zl_visibility) as the core knows it */
  uint32_t capacity;          /* entries in visible */
  zl_visible_device* visible; /* core-owned array the backend fills, in the runtime's order */
  uint32_t count;             /* out: devices the mask leaves visible */
  uint32_t masked;            /* out: 1 when the process inherited a mask, 0 when all are visible */
  char mask[256];             /* out: the inherited mask as "VAR=value" (several separated by
                               * "; "), "" when none */
  char note[512];             /* out: how the mask was read, e.g. where the runtime stops reading
                               * it; "" when there is nothing to say */
} zl_visibility;

/* Which fields of a zl_telemetry hold a reading (zl_telemetry.present). since 1.2 */
#define ZL_TEL_SM_CLOCK (UINT32_C(1) << 0)      /* sm_clock_mhz */
#define ZL_TEL_SM_CLOCK_MAX (UINT32_C(1) << 1)  /* sm_clock_max_mhz */
#define ZL_TEL_MEM_CLOCK (UINT32_C(1) << 2)     /* mem_clock_mhz */
#define ZL_TEL_MEM_CLOCK_MAX (UINT32_C(1) << 3) /* mem_clock_max_mhz */
#define ZL_TEL_LOCKED (UINT32_C(1) << 4)        /* clocks_locked and sm_clock_locked_mhz */
#define ZL_TEL_TEMPERATURE (UINT32_C(1) << 5)   /* temperature_c */
#define ZL_TEL_POWER (UINT32_C(1) << 6)         /* power_mw */
#define ZL_TEL_POWER_LIMIT (UINT32_C(1) << 7)   /* power_limit_mw */
#define ZL_TEL_THROTTLE (UINT32_C(1) << 8)      /* throttle and throttle_text */
#define ZL_TEL_ECC (UINT32_C(1) << 9)           /* ecc */
#define ZL_TEL_MIG (UINT32_C(1) << 10)          /* mig */
#define ZL_TEL_DRIVER (UINT32_C(1) << 11)       /* driver_version */
#define ZL_TEL_FIRMWARE (UINT32_C(1) << 12)     /* firmware_version */

/* Why the device runs below its clocks (zl_telemetry.throttle), in vendor-neutral terms. The
 * backend maps its vendor's reasons onto these and keeps the vendor's own words in throttle_text.
 * since 1.2 */
#define ZL_THROTTLE_IDLE (UINT64_C(1) << 0)        /* nothing runs: clocks are down, no work is slowed */
#define ZL_THROTTLE_APP_CLOCKS (UINT64_C(1) << 1)  /* held at the application or locked clocks */
#define ZL_THROTTLE_POWER (UINT64_C(1) << 2)       /* the driver caps clocks at the power limit */
#define ZL_THROTTLE_THERMAL (UINT64_C(1) << 3)     /* slowed for temperature (software or hardware) */
#define ZL_THROTTLE_HW_SLOWDOWN (UINT64_C(1) << 4) /* hardware slowdown: power brake, external signal */
#define ZL_THROTTLE_SYNC_BOOST (UINT64_C(1) << 5)  /* held to the clocks of a sync-boost group */
#define ZL_THROTTLE_OTHER (UINT64_C(1) << 6)       /* a reason with no bit above; throttle_text names it */

/* One reading of a device's state (read_telemetry). The core owns it; the backend sets a field's
 * ZL_TEL_* bit in present only where it read that field, and leaves the rest zero. since 1.2 */
typedef struct zl_telemetry
{
  uint32_t struct_size;         /* sizeof(zl_telemetry) as the core knows it */
  uint32_t present;             /* out: ZL_TEL_* bits of the fields read */
  uint32_t sm_clock_mhz;        /* out: graphics/SM (AI core) clock now */
  uint32_t sm_clock_max_mhz;    /* out: its maximum (boost) clock */
  uint32_t mem_clock_mhz;       /* out: memory clock now */
  uint32_t mem_clock_max_mhz;   /* out: its maximum */
  uint32_t clocks_locked;       /* out: 1 when the SM clock is locked or set as an application clock */
  uint32_t sm_clock_locked_mhz; /* out: that locked or application clock; 0 when not locked */
  int32_t temperature_c;        /* out: the device's (GPU/NPU die) temperature, degrees Celsius */
  uint32_t power_mw;            /* out: power draw, milliwatts */
  uint32_t power_limit_mw;      /* out: the power limit in force, milliwatts */
  uint32_t ecc;                 /* out: 1 when ECC is on */
  uint32_t mig;                 /* out: 1 when the device is partitioned (MIG, compute partitions) */
  uint32_t reserved;            /* zero */
  uint64_t throttle;            /* out: ZL_THROTTLE_* bits active now; 0 is none */
  char throttle_text[128];      /* out: the vendor's words for them ("SwPowerCap"), "" for none */
  char driver_version[64];      /* out: as the vendor spells it */
  char firmware_version[64];    /* out: VBIOS, firmware or IFWI version */
  char source[64];              /* out: what answered ("NVML", "rocm-smi") */
  char reason[512];             /* out: what could not be read and why; "" when all was */
} zl_telemetry;

/* Verdicts on a graph-capture failure, matched as substrings of the exception text. */
typedef struct zl_capture_wording
{
  const char* const* refused;      /* capture unsupported: fall back to the direct timer */
  const char* const* device_fault; /* the kernel failed on the device: re-raise, never time it */
  const char* const* poisoned;     /* the attempt left the context unusable: stop the op */
} zl_capture_wording;

/* What a compat rule does. */
typedef enum zl_compat_action {
  ZL_COMPAT_DROP_SKIP = 0, /* drop the skip marker: the guard is wrong on this vendor */
  ZL_COMPAT_KEEP_SKIP = 1  /* probed on device and found right: kept, and said so */
} zl_compat_action;

/* One benchmark skip guard and what to do with it on this backend's vendor. */
typedef struct zl_compat_rule
{
  const char* file;        /* path relative to the FlagGems root, e.g. "benchmark/test_fft.py" */
  const char* skip_reason; /* the exact reason string of the skipif marker */
  const char* vendor;      /* applies only when flag_gems.vendor_name equals this */
  zl_compat_action action; /* drop or keep */
  const char* why;         /* one sentence: what was probed and seen */
} zl_compat_rule;

/* One device's spec-sheet peaks (zl_backend_descriptor.peaks), as its vendor's sheet gives them:
 * zl summary's %BW and %TFLOPS are shares of these. Several entries may share one sku, one for
 * each spelling of the device's name (with and without the vendor's prefix, which older drivers
 * leave out). Figures come from the sheet cited in source, never from a guess. since 1.3 */
typedef struct zl_peak
{
  const char* device_name; /* a name enumerate_devices reports for the device ("NVIDIA H100 80GB
                            * HBM3"); matched ignoring case and every character that is not a
                            * letter or digit, and never for a name holding the word MIG (a slice
                            * of the device) */
  const char* sku;         /* the product the sheet names ("NVIDIA H100 SXM5 80GB") */
  double bandwidth_gbps;   /* memory bandwidth, GB/s (10^9 bytes a second) */
  double fp16_tflops;      /* dense (no sparsity) FP16/BF16 on the tensor (matrix) units */
  double fp32_tflops;      /* FP32 off the tensor units (vector); 0: the sheet gives none */
  const char* source;      /* the sheet: its title and URL */
} zl_peak;

/* The descriptor a module returns. Static, immutable, owned by the module. */
typedef struct zl_backend_descriptor
{
  uint32_t abi_major;   /* ZL_ABI_MAJOR the module was built with; since 1.0 */
  uint32_t abi_minor;   /* ZL_ABI_MINOR the module was built with; since 1.0 */
  uint32_t struct_size; /* sizeof(zl_backend_descriptor) as the module knows it; since 1.0 */
  uint32_t reserved;    /* zero; since 1.0 */

  const char* name;           /* [a-z0-9_]+, also the file name's <name>; since 1.0 */
  const char* const* aliases; /* other names --backend accepts, [a-z0-9_]+; since 1.0 */
  const char* version;        /* the module's own version string; since 1.0 */
  const char* description;    /* one line for `zl backends`; since 1.0 */

  const char* flaggems_vendor; /* flag_gems.vendor_name it corresponds to ("nvidia"); since 1.0 */
  const char* torch_module;    /* device module ("torch.cuda"), "" for none; since 1.0 */
  const char* torch_device;    /* torch device type string ("cuda"); since 1.0 */

  const char* visibility_var;          /* set to the chosen devices' visibility_id; "" for none; since 1.0 */
  const char* const* visibility_unset; /* variables removed from the child so they cannot mask it; since 1.0 */

  uint64_t capabilities;               /* ZL_CAP_* flags; since 1.0 */
  const char* graph_class;             /* graph class name under torch_module ("CUDAGraph"), "" for none; since 1.0 */
  zl_capture_wording capture;          /* since 1.0 */
  const char* const* capture_deny_ops; /* ops never captured, keyed as FLAGGEMS_PERF_CURRENT_OP
                                        * holds them: the pytest function name minus "test_"; since 1.0 */
  const zl_compat_rule* compat_rules;  /* since 1.0 */
  size_t compat_rule_count;            /* entries in compat_rules; since 1.0 */
  const char* flagtree_token;          /* <VENDOR> in FLAGTREE_<VENDOR>_RLC_ENHANCE ("" for none); since 1.0 */

  /* Lists the devices. Must not throw, abort or print; returns ZL_OK with count 0 and a reason
   * when there is nothing to list. host is valid only during the call. since 1.0
   *
   * Calls, and what zl guarantees: zl makes one call into a module at a time (enumerate_devices
   * and filter_visible are never running at once, in one thread or several), and never re-enters
   * it: the host's run_program and get_env do not call back into a module. zl may call
   * enumerate_devices several times in one process (selecting a backend, then the devices of a
   * run), each time with a fresh out.
   * What a backend must assume: any call may be the first or another one, so it opens and closes
   * (or reference-counts) its vendor library within the call and keeps nothing between calls
   * that a later call depends on. It need not be safe to call concurrently, nor lock against it:
   * not every vendor's management library allows concurrent use, and zl relies on none doing
   * so. A program other than zl that loads modules serializes its calls into each module. */
  zl_status (*enumerate_devices)(const zl_host_api* host, zl_enumeration* out);

  /* Applies the visibility mask the process inherited (visibility_var, or any variable of the
   * vendor that masks devices: only the backend knows their forms) to the devices that
   * enumerate_devices listed, whose index, uuid and visibility_id ignore every mask. Must not
   * throw, abort or print; with no mask set, every device is visible and masked is 0. NULL: the
   * core reads visibility_var as a comma list of indices, UUIDs or visibility_ids, stops at the
   * first entry that names no device, and pins each device by the entry that named it. Called as
   * enumerate_devices is (one call at a time, never re-entered). since 1.1 */
  zl_status (*filter_visible)(const zl_host_api* host, const zl_device_info* devices, uint32_t count,
                              zl_visibility* out);
  /* Reads one device's state now: clocks, temperature, power, throttle reasons, versions. Must
   * not throw, abort or print; returns ZL_OK with the fields it could read marked in present (none
   * is an answer too, with a reason), or an error status and a reason. device is one that
   * enumerate_devices listed. NULL: the backend reads no telemetry (zl says so).
   * Calls: as enumerate_devices (one call at a time, never re-entered), but zl calls it often
   * (before and after every op, and from a sampler while one runs), so unlike enumerate_devices
   * a backend may keep its library open between calls, as a cache it rebuilds when a call fails.
   * since 1.2 */
  zl_status (*read_telemetry)(const zl_host_api* host, const zl_device_info* device, zl_telemetry* out);

  /* The spec-sheet peaks of the devices this backend lists (docs/peaks.md). zl takes the first
   * entry, over the modules in search order, whose device_name matches a run's device name; a
   * name no entry matches has no peak. NULL (peak_count 0): the backend knows none. since 1.3 */
  const zl_peak* peaks;
  size_t peak_count; /* entries in peaks; since 1.3 */
} zl_backend_descriptor;

/* Size of the descriptor as of ABI 1.0: the least a module of major 1 may report. */
#define ZL_DESCRIPTOR_MIN_SIZE_1_0 (offsetof(zl_backend_descriptor, enumerate_devices) + sizeof(void*))

/* The signature of the entry point. A module defines it as
 *   ZL_BACKEND_EXPORT const zl_backend_descriptor* zl_backend_get_descriptor(void);
 * (a C++ module writes ZL_BACKEND_ENTRY(<descriptor>) from zl/sdk/descriptor.hpp instead).
 * It is called once, may not fail, and returns the same pointer every time. */
typedef const zl_backend_descriptor* (*zl_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* ZL_BACKEND_ABI_H */
