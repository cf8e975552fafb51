// The core's half of the spec peaks: matching a device name against tables it is given (made up
// here, vendor-free), and the tables of the modules it discovers. Each backend's own figures and
// names are tested beside it (test_backend_<name>_peaks.cpp).
#include "devices/peaks.hpp"

#include <doctest/doctest.h>

#include <string>

using zl::devices::PeakTable;
using zl::devices::spec_peak;

namespace {

constexpr const char* k_sheet = "Acme X1 datasheet, https://example.invalid/x1";

const zl_peak k_first[] = {
    {"Acme X1 80GB HBM3", "Acme X1 SXM 80GB", 3000, 900, 60, k_sheet},
    {"X1 80GB HBM3", "Acme X1 SXM 80GB", 3000, 900, 60, k_sheet},
    {"Acme X1 NVL", "Acme X1 NVL", 3500, 800, 0, k_sheet},
    {"Acme X1", "Acme X1 PCIe", 2000, 700, 50, k_sheet},
};
const zl_peak k_second[] = {
    {"Acme X1", "another table's X1", 1, 1, 1, k_sheet},
    {"Other Y2", "Other Y2", 1200, 300, 40, "Y2 sheet, https://example.invalid/y2"},
};

const std::vector<PeakTable> k_tables = {{k_first, 4}, {k_second, 2}};

// The SKU a name matches, or "" for none.
std::string sku_of(std::string_view name, const std::vector<PeakTable>& tables = k_tables)
{
  const auto p = spec_peak(name, tables);
  return p ? std::string(p->sku) : std::string();
}

} // namespace

TEST_CASE("zl::devices::spec_peak: case and all but letters and digits do not matter")
{
  CHECK(sku_of("Acme X1 80GB HBM3") == "Acme X1 SXM 80GB");
  CHECK(sku_of("acme x1 80gb hbm3") == "Acme X1 SXM 80GB");
  CHECK(sku_of("  ACME X1-80GB_HBM3\n") == "Acme X1 SXM 80GB");
  CHECK(sku_of("Acme X180GBHBM3") == "Acme X1 SXM 80GB");
  CHECK(sku_of("X1 80GB HBM3") == "Acme X1 SXM 80GB"); // a spelling the table lists
  // Whole names only: no prefix, suffix or word of a name is the name.
  CHECK(sku_of("Acme X1 NVL") == "Acme X1 NVL");
  CHECK(sku_of("Acme X1") == "Acme X1 PCIe");
  CHECK(sku_of("X1") == "");     // the table does not list it without "Acme"
  CHECK(sku_of("X1 NVL") == ""); // nor this one
  CHECK(sku_of("Acme X1 80GB") == "");
  CHECK(sku_of("Acme X1 80GB HBM3 (compat)") == "");
  CHECK(sku_of("Acme X1/X2") == "");
  CHECK(sku_of("Other Y2") == "Other Y2"); // the second table
  CHECK(sku_of("") == "");
  CHECK(sku_of(" - ") == "");
}

TEST_CASE("zl::devices::spec_peak: a slice of a device, the first table, the figures")
{
  // A name holding the word MIG is a slice of the device: never the device's peak.
  CHECK(sku_of("Acme X1 80GB HBM3 MIG 1g.10gb") == "");
  CHECK(sku_of("MIG 3g.40gb Device 0") == "");
  CHECK(sku_of("Acme X1-MIG") == "");
  CHECK(sku_of("Acme X1 MIGHTY") == ""); // no such name either way
  // One name in two tables: the first table's (the first module in search order).
  CHECK(sku_of("Acme X1") == "Acme X1 PCIe");
  CHECK(sku_of("Acme X1", {{k_second, 2}, {k_first, 4}}) == "another table's X1");
  // No tables, a table without entries: no peak.
  CHECK(sku_of("Acme X1", {}) == "");
  CHECK(sku_of("Acme X1", {{nullptr, 0}, {nullptr, 3}}) == "");

  const auto x1 = spec_peak("Acme X1 80GB HBM3", k_tables);
  REQUIRE(x1);
  CHECK(x1->bandwidth_gbps == 3000);
  CHECK(x1->fp16_tflops == 900);
  CHECK(x1->fp32_tflops == 60);
  CHECK(x1->source == k_sheet);
  const auto nvl = spec_peak("Acme X1 NVL", k_tables);
  REQUIRE(nvl);
  CHECK_FALSE(nvl->fp32_tflops.has_value()); // 0: the sheet gives none
}

TEST_CASE("zl::devices::spec_peaks: every SKU once, in the tables' order")
{
  std::vector<std::string> skus;
  for (const auto& p : zl::devices::spec_peaks(k_tables)) {
    skus.emplace_back(p.sku);
  }
  CHECK(skus ==
        std::vector<std::string>{"Acme X1 SXM 80GB", "Acme X1 NVL", "Acme X1 PCIe", "another table's X1", "Other Y2"});
  CHECK(zl::devices::spec_peaks({}).empty());
}

TEST_CASE("zl::devices::backend_peak_tables: the modules of the build tree")
{
  // zl_unit runs from build/bin, so the search folders are the build tree's lib/zl/backends, as
  // for build/bin/zl: the cuda and rocm modules give the tables that the vendors' tests check.
  const auto& tables = zl::devices::backend_peak_tables();
  CHECK(&tables == &zl::devices::backend_peak_tables()); // discovered once
  REQUIRE_FALSE(tables.empty());
  const auto h100 = spec_peak("NVIDIA H100 80GB HBM3");
  REQUIRE(h100);
  CHECK(h100->sku == "NVIDIA H100 SXM5 80GB");
  CHECK(spec_peak("AMD Instinct MI300X")->sku == "AMD Instinct MI300X");
  CHECK_FALSE(spec_peak("NVIDIA H100 80GB HBM3 MIG 7g.80gb").has_value());
  CHECK(zl::devices::spec_peaks().size() == 12);
}
