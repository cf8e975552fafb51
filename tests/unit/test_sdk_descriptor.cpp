#include "fake_vendor_host.hpp"

#include <zl/sdk/descriptor.hpp>

#include <doctest/doctest.h>

#include <new>
#include <stdexcept>
#include <string>

using namespace zl;

namespace {

zl_status throws_runtime(const zl_host_api*, zl_enumeration*)
{
  throw std::runtime_error("parser bug");
}

zl_status throws_bad_alloc(const zl_host_api*, zl_enumeration*)
{
  throw std::bad_alloc();
}

zl_status throws_int(const zl_host_api*, zl_enumeration*)
{
  throw 42;
}

zl_status answers(const zl_host_api*, zl_enumeration* out)
{
  out->count = 0;
  return ZL_ERR_UNAVAILABLE;
}

} // namespace

TEST_CASE("zl::sdk::empty_descriptor")
{
  const zl_backend_descriptor d = sdk::empty_descriptor();
  CHECK(d.abi_major == ZL_ABI_MAJOR);
  CHECK(d.abi_minor == ZL_ABI_MINOR);
  CHECK(d.struct_size == sizeof(zl_backend_descriptor));
  // What the loader refuses when NULL is left for the backend to set.
  CHECK(d.name == nullptr);
  CHECK((d.enumerate_devices == nullptr));
  CHECK((d.filter_visible == nullptr));
  // Every list is empty, every optional string "".
  for (const char* const* list : {d.aliases, d.visibility_unset, d.capture.refused, d.capture.device_fault,
                                  d.capture.poisoned, d.capture_deny_ops}) {
    REQUIRE(list != nullptr);
    CHECK(list[0] == nullptr);
  }
  for (const char* text : {d.torch_module, d.visibility_var, d.graph_class, d.flagtree_token}) {
    CHECK(std::string(text).empty());
  }
  CHECK(d.compat_rule_count == 0);
}

TEST_CASE("zl::sdk::guarded_enumerate")
{
  test::FakeVendorHost host;
  test::Enumeration e;
  e.out.count = 3;
  CHECK(sdk::guarded_enumerate<throws_runtime>(host.api(), &e.out) == ZL_ERR_INTERNAL);
  CHECK(e.out.count == 0);
  CHECK(e.reason() == "internal error while listing devices: parser bug");
  CHECK(sdk::guarded_enumerate<throws_bad_alloc>(host.api(), &e.out) == ZL_ERR_INTERNAL);
  CHECK(e.reason() == "internal error while listing devices: std::bad_alloc");
  CHECK(sdk::guarded_enumerate<throws_int>(host.api(), &e.out) == ZL_ERR_INTERNAL);
  CHECK(e.reason() == "internal error while listing devices (an exception of unknown type)");
  CHECK(sdk::guarded_enumerate<answers>(host.api(), &e.out) == ZL_ERR_UNAVAILABLE);
}
