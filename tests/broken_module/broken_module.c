/* One source for every test module, good and broken: compile definitions pick the variant,
 * as the Vulkan loader's test ICDs do. Each variant's failure message is asserted exactly in
 * tests/unit/test_loader_module.cpp. */
#include <zl/backend_abi.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ZL_TEST_NAME
#error "ZL_TEST_NAME must name the module"
#endif
#ifndef ZL_TEST_ALIAS
#define ZL_TEST_ALIAS "alias_" ZL_TEST_NAME
#endif
#ifndef ZL_TEST_DEVICES
#define ZL_TEST_DEVICES 0
#endif

static const char* const aliases[] = {ZL_TEST_ALIAS, NULL};
static const char* const none[] = {NULL};
static const char* const refused[] = {"capture refused by test", NULL};
static const char* const fault[] = {"device fault in test", NULL};
static const char* const deny[] = {"unique2", NULL};
static const zl_compat_rule rules[] = {
    {"benchmark/test_fake.py", "FAKE is not available", "fakevendor", ZL_COMPAT_DROP_SKIP, "test rule"},
};

static zl_status enumerate(const zl_host_api* host, zl_enumeration* out)
{
  (void)host;
  out->count = ZL_TEST_DEVICES;
  snprintf(out->source, sizeof out->source, "%s", "test module");
  if (ZL_TEST_DEVICES == 0) {
    snprintf(out->reason, sizeof out->reason, "%s", "the test module has no devices");
  }
  for (unsigned i = 0; i < ZL_TEST_DEVICES && i < out->capacity; ++i) {
    zl_device_info* d = &out->devices[i];
    memset(d, 0, sizeof *d);
    d->index = i;
    d->memory_bytes = (uint64_t)(i + 1) << 30;
    snprintf(d->uuid, sizeof d->uuid, "TEST-%s-%u", ZL_TEST_NAME, i);
    snprintf(d->name, sizeof d->name, "Test Device %u", i);
    snprintf(d->visibility_id, sizeof d->visibility_id, "%u", i);
  }
  return ZL_OK;
}

#if defined(ZL_TEST_TELEMETRY)
/* A device at half its maximum SM clock, capped by power: every field a backend can fill. */
static zl_status read_telemetry(const zl_host_api* host, const zl_device_info* device, zl_telemetry* out)
{
  (void)host;
  out->present = ZL_TEL_SM_CLOCK | ZL_TEL_SM_CLOCK_MAX | ZL_TEL_TEMPERATURE | ZL_TEL_POWER | ZL_TEL_POWER_LIMIT |
                 ZL_TEL_THROTTLE | ZL_TEL_LOCKED | ZL_TEL_DRIVER;
  out->sm_clock_mhz = 1000;
  out->sm_clock_max_mhz = 2000;
  out->temperature_c = 71;
  out->power_mw = 350500;
  out->power_limit_mw = 350000;
  out->throttle = ZL_THROTTLE_POWER;
  snprintf(out->throttle_text, sizeof out->throttle_text, "SwPowerCap");
  out->clocks_locked = 0;
  snprintf(out->driver_version, sizeof out->driver_version, "1.2.3-%s", device->uuid);
  snprintf(out->source, sizeof out->source, "test");
  return ZL_OK;
}
#endif

#if defined(ZL_TEST_OLDER_MINOR)
/* Where an ABI 1.1 descriptor ends, whatever follows is not the module's: never to be called. */
static zl_status never_called(const zl_host_api* host, const zl_device_info* device, zl_telemetry* out)
{
  (void)host, (void)device, (void)out;
  abort();
}
#endif

#if defined(ZL_TEST_PEAKS) || defined(ZL_TEST_ABI_1_2)
/* Test Device 0 under two spellings of one made-up SKU. */
static const zl_peak peaks[] = {
    {"Test Device 0", "Test SKU 80GB", 1000, 500, 0, "test sheet, https://example.invalid/sheet"},
    {"TEST-DEVICE-0 (rev 2)", "Test SKU 80GB", 1000, 500, 0, "test sheet, https://example.invalid/sheet"},
};
#endif

/* A descriptor with room after it, so a "newer minor" can report a larger size honestly. */
static struct
{
  zl_backend_descriptor d;
  char future_fields[32];
} storage = {{
                 ZL_ABI_MAJOR,
                 ZL_ABI_MINOR,
                 sizeof(zl_backend_descriptor),
                 0,
                 ZL_TEST_NAME,
                 aliases,
                 "9.9.9",
                 "test module " ZL_TEST_NAME,
                 "fakevendor",
                 "torch.fake",
                 "fake",
                 "FAKE_VISIBLE_DEVICES",
                 none,
                 ZL_CAP_GRAPH_CAPTURE,
                 "FakeGraph",
                 {refused, fault, none},
                 deny,
                 rules,
                 1,
                 "FAKE",
                 enumerate,
             },
             {0}};

#ifdef ZL_TEST_ENTRY_IN_DEPENDENCY
/* No entry point of its own: the one dlsym finds lives in a library this module links. */
extern int zl_test_dependency_marker(void);
int zl_test_uses_dependency(void)
{
  return zl_test_dependency_marker();
}
#elif !defined(ZL_TEST_NO_ENTRY)
ZL_BACKEND_EXPORT const zl_backend_descriptor* zl_backend_get_descriptor(void)
{
#if defined(ZL_TEST_NULL_DESCRIPTOR)
  return NULL;
#else
#if defined(ZL_TEST_ABI_MAJOR)
  storage.d.abi_major = ZL_TEST_ABI_MAJOR;
#endif
#if defined(ZL_TEST_ABI_MINOR)
  storage.d.abi_minor = ZL_TEST_ABI_MINOR;
#endif
#if defined(ZL_TEST_STRUCT_SIZE)
  storage.d.struct_size = ZL_TEST_STRUCT_SIZE;
#endif
#if defined(ZL_TEST_TELEMETRY)
  storage.d.read_telemetry = read_telemetry;
#endif
#if defined(ZL_TEST_OLDER_MINOR)
  storage.d.abi_minor = 1;
  storage.d.struct_size = offsetof(zl_backend_descriptor, read_telemetry);
  storage.d.read_telemetry = never_called;
#endif
#if defined(ZL_TEST_PEAKS)
  storage.d.peaks = peaks;
  storage.d.peak_count = sizeof peaks / sizeof peaks[0];
#endif
#if defined(ZL_TEST_ABI_1_2)
  /* Where an ABI 1.2 descriptor ends, the table that follows is not the module's: never read. */
  storage.d.abi_minor = 2;
  storage.d.struct_size = offsetof(zl_backend_descriptor, peaks);
  storage.d.peaks = peaks;
  storage.d.peak_count = sizeof peaks / sizeof peaks[0];
#endif
#if defined(ZL_TEST_NULL_PEAKS)
  storage.d.peak_count = 3;
#endif
#if defined(ZL_TEST_INNER_NAME)
  storage.d.name = ZL_TEST_INNER_NAME;
#endif
#if defined(ZL_TEST_NULL_VERSION)
  storage.d.version = NULL;
#endif
#if defined(ZL_TEST_HOST_FALLBACK)
  storage.d.capabilities = ZL_CAP_HOST_FALLBACK;
  storage.d.graph_class = "";
  storage.d.visibility_var = "";
  storage.d.compat_rules = NULL;
  storage.d.compat_rule_count = 0;
#endif
  return &storage.d;
#endif
}
#else
ZL_BACKEND_EXPORT int zl_backend_something_else(void)
{
  return 0;
}
#endif

#ifdef ZL_TEST_NEEDS_MISSING_LIBRARY
extern int zl_test_missing_function(void);
ZL_BACKEND_EXPORT int zl_test_call_missing(void)
{
  return zl_test_missing_function();
}
#endif

#ifdef ZL_TEST_UNDEFINED_SYMBOL
/* Defined nowhere: RTLD_NOW refuses the module at load time. */
extern int zl_test_defined_nowhere(void);
ZL_BACKEND_EXPORT int zl_test_call_nowhere(void)
{
  return zl_test_defined_nowhere();
}
#endif
