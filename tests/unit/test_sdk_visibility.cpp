#include "fake_vendor_host.hpp"

#include <zl/sdk/visibility.hpp>

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace zl;

namespace {

std::vector<sdk::Device> three()
{
  return {{0, "GPU-a", "H200", 1, "0"}, {1, "GPU-b", "H200", 1, "1"}, {2, "GPU-c", "H200", 1, "2"}};
}

// "index=pin" per visible device, in the runtime's order.
std::vector<std::string> seen(const sdk::Visibility& v, const std::vector<sdk::Device>& devices)
{
  std::vector<std::string> out;
  for (const auto& d : v.visible) {
    out.push_back(std::to_string(devices[d.device].index) + "=" + d.pin);
  }
  return out;
}

sdk::Visibility filter_from_env(const zl_host_api* host, const std::vector<sdk::Device>& devices)
{
  const char* value = sdk::env_value(host, "X_VISIBLE");
  return value == nullptr ? sdk::all_visible(devices)
                          : sdk::read_list_mask("X_VISIBLE", value, devices, sdk::match_index);
}

sdk::Visibility filter_throws(const zl_host_api*, const std::vector<sdk::Device>&)
{
  throw std::runtime_error("mask bug");
}

} // namespace

TEST_CASE("zl::sdk::read_list_mask")
{
  const auto devices = three();
  auto v = sdk::read_list_mask("X", " 2 , 0", devices, sdk::match_index);
  CHECK(v.masked);
  CHECK(v.mask == "X= 2 , 0");
  CHECK(seen(v, devices) == std::vector<std::string>{"2=2", "0=0"}); // the list's order
  CHECK(v.note.empty());

  v = sdk::read_list_mask("X", "", devices, sdk::match_index);
  CHECK(v.visible.empty());
  CHECK(v.note == "X is set but empty, which hides every device");

  // An empty entry is an entry, and an invalid one: reading stops there.
  v = sdk::read_list_mask("X", "1,,2", devices, sdk::match_index);
  CHECK(seen(v, devices) == std::vector<std::string>{"1=1"});
  CHECK(v.note.rfind("X entry 2 '' is empty: the runtime stops reading the list there", 0) == 0);

  v = sdk::read_list_mask("X", "1,7,2", devices, sdk::match_index);
  CHECK(seen(v, devices) == std::vector<std::string>{"1=1"});
  CHECK(v.note.rfind("X entry 2 '7' names no device (the indices are 0, 1, 2)", 0) == 0);

  v = sdk::read_list_mask("X", "1,1", devices, sdk::match_index);
  CHECK(seen(v, devices) == std::vector<std::string>{"1=1"});
  CHECK(v.note == "X entry 2 '1' names a device already listed; it counts once");

  sdk::MaskRules cann;
  cann.ascending = true;
  cann.trim_entries = false;
  v = sdk::read_list_mask("X", "2,0", devices, sdk::match_index, cann);
  CHECK(seen(v, devices) == std::vector<std::string>{"2=2"});
  CHECK(v.note.find("does not ascend") != std::string::npos);
  // Untrimmed, the entry reaches the match (and the pin) as it was written.
  v = sdk::read_list_mask("X", "0, 1", devices, sdk::match_index, cann);
  CHECK(seen(v, devices) == std::vector<std::string>{"0=0", "1= 1"});
}

TEST_CASE("zl::sdk::all_visible")
{
  const auto devices = three();
  const auto v = sdk::all_visible(devices);
  CHECK_FALSE(v.masked);
  CHECK(seen(v, devices) == std::vector<std::string>{"0=0", "1=1", "2=2"});
  CHECK(sdk::env_value(nullptr, "X_VISIBLE") == nullptr);
}

TEST_CASE("zl::sdk::guarded_filter")
{
  test::FakeVendorHost host;
  host.set_env("X_VISIBLE", "2");
  std::vector<zl_device_info> in(3);
  for (uint32_t i = 0; i < 3; ++i) {
    in[i].index = i;
    sdk::copy_field(in[i].visibility_id, std::to_string(i));
  }
  std::vector<zl_visible_device> visible(3);
  zl_visibility out{};
  out.struct_size = sizeof(out);
  out.capacity = 3;
  out.visible = visible.data();
  CHECK(sdk::guarded_filter<filter_from_env>(host.api(), in.data(), 3, &out) == ZL_OK);
  CHECK(out.masked == 1);
  CHECK(std::string(out.mask) == "X_VISIBLE=2");
  REQUIRE(out.count == 1);
  CHECK(visible[0].device == 2);
  CHECK(std::string(visible[0].pin) == "2");

  CHECK(sdk::guarded_filter<filter_throws>(host.api(), in.data(), 3, &out) == ZL_ERR_INTERNAL);
  CHECK(out.count == 0);
  CHECK(std::string(out.note) == "internal error while reading the visibility mask: mask bug");
}
