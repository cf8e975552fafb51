// Helpers for the filter_visible tests of each backend (test_backend_<name>_visibility.cpp).
#pragma once

#include "fake_vendor_host.hpp"

#include <zl/sdk/visibility.hpp>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace zl::test {

// The visible devices as "index=pin", in the runtime's order.
inline std::vector<std::string> seen(const sdk::Visibility& v, const std::vector<sdk::Device>& devices)
{
  std::vector<std::string> out;
  for (const auto& d : v.visible) {
    out.push_back(std::to_string(devices[d.device].index) + "=" + d.pin);
  }
  return out;
}

// Runs Filter with a host whose environment holds `env` and nothing else.
template <sdk::Visibility (*Filter)(const zl_host_api*, const std::vector<sdk::Device>&)>
sdk::Visibility with_env(const std::vector<sdk::Device>& devices,
                         std::initializer_list<std::pair<std::string, std::string>> env)
{
  FakeVendorHost host;
  for (const auto& [k, v] : env) {
    host.set_env(k, v);
  }
  return Filter(host.api(), devices);
}

} // namespace zl::test
