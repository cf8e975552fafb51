// Helpers for the backends' spec-peak tables (test_backend_<name>_peaks.cpp), read through the
// core's matching (devices/peaks.hpp) as zl reads a module's table.
#pragma once

#include "devices/peaks.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>

namespace zl::test {

// The SKU name matches in table, or "" for none.
inline std::string sku_in(const devices::PeakTable& table, std::string_view name)
{
  const auto p = devices::spec_peak(name, {table});
  return p ? std::string(p->sku) : std::string();
}

// What every table keeps: each entry named, its figures positive, its sheet cited by address;
// the entries of one SKU (its spellings) give one set of figures. Returns the SKUs' count.
inline size_t check_peak_table(const devices::PeakTable& table)
{
  std::map<std::string, const zl_peak*> first; // SKU -> its first entry
  for (size_t i = 0; i < table.count; ++i) {
    const auto& e = table.entries[i];
    REQUIRE(e.device_name != nullptr);
    REQUIRE(e.sku != nullptr);
    REQUIRE(e.source != nullptr);
    CAPTURE(e.device_name);
    CHECK(std::strlen(e.device_name) > 0);
    CHECK(e.bandwidth_gbps > 0);
    CHECK(e.fp16_tflops > 0);
    CHECK(e.fp32_tflops >= 0);
    CHECK(std::string_view(e.source).find("https://") != std::string_view::npos);
    // Each spelling finds its own SKU: no earlier entry of another SKU shadows it.
    CHECK(sku_in(table, e.device_name) == e.sku);
    const auto [it, fresh] = first.emplace(e.sku, &e);
    if (!fresh) {
      CHECK(e.bandwidth_gbps == it->second->bandwidth_gbps);
      CHECK(e.fp16_tflops == it->second->fp16_tflops);
      CHECK(e.fp32_tflops == it->second->fp32_tflops);
      CHECK(std::string_view(e.source) == it->second->source);
    }
  }
  CHECK(devices::spec_peaks({table}).size() == first.size());
  return first.size();
}

} // namespace zl::test
