// The services the core lends a backend (zl_host_api): running vendor tools, reading the
// environment.
#pragma once

#include <zl/backend_abi.h>

#include <chrono>

namespace zl::host {

// A zl_host_api backed by util::run. Lives as long as the HostApi object.
class HostApi
{
public:
  HostApi();
  const zl_host_api* get() const { return &m_api; }

private:
  zl_host_api m_api;
};

} // namespace zl::host
