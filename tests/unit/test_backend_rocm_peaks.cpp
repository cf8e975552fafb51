// The rocm backend's spec-peak table (rocm_peaks.cpp), read through the core's matching as zl
// reads the module's descriptor: names from real tool output, spellings, exact figures.
#include "rocm_devices.hpp"

#include "fixture.hpp"
#include "peak_helpers.hpp"

#include <doctest/doctest.h>

using zl::test::sku_in;

namespace {

const zl::devices::PeakTable k_table{zl::backend_rocm::peaks(), zl::backend_rocm::peak_count()};

std::string sku_of(std::string_view name)
{
  return sku_in(k_table, name);
}

std::optional<zl::devices::Peak> peak(std::string_view name)
{
  return zl::devices::spec_peak(name, {k_table});
}

} // namespace

TEST_CASE("zl::backend_rocm::peaks: names from real tool output (tests/fixtures/smi/real)")
{
  struct Case
  {
    const char* fixture;
    const char* name; // as it appears in the fixture and the backend reports it
    const char* sku;  // "": no peak
  };
  const Case cases[] = {
      {"amd-smi/OFFICIAL-changelog-rocm700-mi300x-x8-default.txt", "AMD Instinct MI300X", "AMD Instinct MI300X"},
      {"amd-smi/rocm-systems-pr2987-mi350x-static-multi-TRUNCATED.txt", "AMD Instinct MI350X", ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    REQUIRE(zl::test::read_fixture(std::string("smi/real/") + c.fixture).find(c.name) != std::string::npos);
    CHECK(sku_of(c.name) == c.sku);
  }
}

TEST_CASE("zl::backend_rocm::peaks: spellings and ambiguous names")
{
  CHECK(sku_of("AMD Instinct MI300X") == "AMD Instinct MI300X");
  CHECK(sku_of("AMD Instinct MI300X OAM") == "AMD Instinct MI300X");
  CHECK(sku_of("Instinct MI300X") == "AMD Instinct MI300X"); // without "AMD", as before ABI 1.3
  CHECK(sku_of("amd instinct mi300x") == "AMD Instinct MI300X");
  CHECK(sku_of("AMD Instinct MI250X") == "AMD Instinct MI250X");
  CHECK(sku_of("AMD Instinct MI250") == "AMD Instinct MI250");
  CHECK(sku_of("AMD Instinct MI250X/MI250") == ""); // rocm-smi names both so
  CHECK(sku_of("AMD Instinct MI300") == "");
  CHECK(sku_of("AMD") == "");
  CHECK(sku_of("NVIDIA H100 80GB HBM3") == ""); // another backend's device
}

TEST_CASE("zl::backend_rocm::peaks: the figures, exactly as the sheets give them")
{
  const auto mi300x = peak("AMD Instinct MI300X");
  REQUIRE(mi300x);
  CHECK(mi300x->bandwidth_gbps == 5300);
  CHECK(mi300x->fp16_tflops == 1307.4);
  CHECK(mi300x->fp32_tflops == 163.4);
  CHECK(peak("AMD Instinct MI250X")->fp16_tflops == 383);
  CHECK(peak("AMD Instinct MI250")->fp16_tflops == 362.1);
  CHECK(peak("AMD Instinct MI250")->bandwidth_gbps == 3200);
  // Every SKU once, each with its sheet; its spellings agree.
  CHECK(zl::test::check_peak_table(k_table) == 3);
}
