// Moore Threads telemetry: the mthreads-gmi table parser on every real output under
// tests/fixtures/smi/real/mthreads-gmi (the default table, gmi 1.12 to 2.4) and on constructed
// ones, and read_telemetry with a fake host.
#include "musa_telemetry.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>

using namespace zl::backend_musa;
using zl::test::FakeVendorHost;
using zl::test::nothing_read;
using zl::test::read_fixture;

namespace {

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

std::string real(const std::string& name)
{
  return read_fixture("smi/real/mthreads-gmi/" + name);
}

std::string fx(const std::string& name)
{
  return read_fixture("smi/musa/" + name);
}

const char* const k_s5000x8 = "codeindex-63142327910-paddlefleet-s5000-x8-gmi2.4.1-drv5.1.0-server.txt";
const char* const k_s4000_cut = "gpustack-issue3511-s4000-x8-gmi2.2.0-drv3.0.0-perf-NA-TRUNCATED.txt";
const char* const k_s5000_cut = "vllm-omni-pr2337-s5000-gmi2.3.2-drv3.3.5-server-TRUNCATED.txt";

} // namespace

TEST_CASE("zl::backend_musa::parse_gmi_table_telemetry on real outputs")
{
  struct Want
  {
    const char* file;
    uint32_t gpu;
    std::optional<int32_t> temperature;
    std::optional<bool> ecc; // "On-die, EDC" is on; "N/A" unread
    const char* driver;
  };
  const Want wants[] = {
      {"EDGE-tutorial_on_musa-faq-s4000-gmi1.12.2-drv1.2.0-mem-used-exceeds-total.txt", 0, 65, std::nullopt, "1.2.0"},
      {"codeindex-47133595866-vllm-musa-notes-s80-gmi1.14.0-drv2.7.0-x4link.txt", 0, 49, std::nullopt, "2.7.0"},
      {"codeindex-55593752466-s80-gmi2.0.0-drv3.0.0-with-processes.txt", 0, 41, std::nullopt, "3.0.0"},
      {k_s5000x8, 0, 48, true, "5.1.0-server"},
      {k_s5000x8, 5, 50, true, "5.1.0-server"},
      {k_s5000x8, 7, 49, true, "5.1.0-server"},
      {k_s4000_cut, 0, 44, std::nullopt, "3.0.0"},
      {k_s4000_cut, 1, 44, std::nullopt, "3.0.0"},
      {k_s5000_cut, 0, 52, true, "3.3.5-server"},
      {k_s5000_cut, 1, 51, true, "3.3.5-server"},
  };
  for (const auto& w : wants) {
    CAPTURE(w.file);
    CAPTURE(w.gpu);
    const auto r = parse_gmi_table_telemetry(real(w.file), w.gpu);
    REQUIRE(r.error.empty());
    const Telemetry& t = r.telemetry;
    CHECK(t.source == "mthreads-gmi");
    CHECK(t.temperature_c == w.temperature);
    CHECK(t.ecc == w.ecc);
    CHECK(t.driver_version == w.driver);
    // The table has no clocks, power or firmware: nothing else is read.
    CHECK(!t.sm_clock_mhz);
    CHECK(!t.power_w);
    CHECK(!t.locked_mhz);
    CHECK(!t.throttle);
    CHECK(t.firmware_version.empty());
    CHECK(has(t.reason, "mthreads-gmi's table prints no clocks, power or firmware version"));
  }
  CHECK(has(parse_gmi_table_telemetry(real(k_s4000_cut), 0).telemetry.reason, "ECC: mthreads-gmi printed 'N/A'"));
}

TEST_CASE("zl::backend_musa::parse_gmi_table_telemetry on cut real outputs and absent GPUs")
{
  SUBCASE("the copy ends inside GPU 2's second row: no Temp, the driver still read")
  {
    const auto r = parse_gmi_table_telemetry(real(k_s4000_cut), 2);
    REQUIRE(r.error.empty());
    CHECK(!r.telemetry.temperature_c);
    CHECK(r.telemetry.driver_version == "3.0.0");
    CHECK(has(r.telemetry.reason, "the output ends mid-line at line 18 '     Physical      N/A    |16x(16x)'"));
    CHECK(has(r.telemetry.reason, "temperature: the table ends before GPU 2's Temp"));
  }
  SUBCASE("the copy ends before GPU 2's ECC Mode: the temperature read, ECC not")
  {
    const auto r = parse_gmi_table_telemetry(real(k_s5000_cut), 2);
    REQUIRE(r.error.empty());
    CHECK(r.telemetry.temperature_c == 52);
    CHECK(!r.telemetry.ecc);
    CHECK(has(r.telemetry.reason, "ECC: the table ends before the ECC Mode"));
  }
  SUBCASE("a GPU the table does not list")
  {
    CHECK(parse_gmi_table_telemetry(real(k_s5000_cut), 3).error == "mthreads-gmi lists no GPU 3 (it lists 0, 1, 2)");
    CHECK(parse_gmi_table_telemetry(real("codeindex-55593752466-s80-gmi2.0.0-drv3.0.0-with-processes.txt"), 1).error ==
          "mthreads-gmi lists no GPU 1 (it lists 0)"); // the process rows are not GPUs
  }
}

TEST_CASE("zl::backend_musa::parse_gmi_table_telemetry on constructed outputs")
{
  SUBCASE("empty, garbage, the -q and CSV forms: errors quoting the first line")
  {
    CHECK(parse_gmi_table_telemetry(fx("mthreads-gmi-table-empty.txt"), 0).error == "mthreads-gmi printed nothing");
    CHECK(parse_gmi_table_telemetry(fx("mthreads-gmi-table-garbage.txt"), 0).error ==
          "no 'ID  Name  |PCIe' header; 'mthreads-gmi: error while loading shared libraries: libmtml.so: cannot open "
          "shared object file: No such file or directory' is not mthreads-gmi's table");
    for (const char* file : {"mthreads-gmi-q-2gpu.txt", "mthreads-gmi-csv-2gpu.txt", "mthreads-gmi-q-garbage.txt"}) {
      CAPTURE(file);
      const auto r = parse_gmi_table_telemetry(fx(file), 0);
      CHECK(has(r.error, "is not mthreads-gmi's table"));
      CHECK(nothing_read(r.telemetry));
    }
  }
  SUBCASE("cut in the middle of the Temp value: the cut row is not read")
  {
    const auto r = parse_gmi_table_telemetry(fx("mthreads-gmi-table-truncated.txt"), 0);
    REQUIRE(r.error.empty());
    CHECK(!r.telemetry.temperature_c);
    CHECK(r.telemetry.driver_version == "5.1.0-server");
    CHECK(has(r.telemetry.reason, "the output ends mid-line at line 10"));
  }
  SUBCASE("a Temp of another form is an error quoting the row; N/A and Off are read as such")
  {
    std::string text = real(k_s5000x8);
    const auto at = text.find("|48C   YES");
    REQUIRE(at != std::string::npos);
    text.replace(at, 4, "|hot");
    auto r = parse_gmi_table_telemetry(text, 0);
    CHECK(r.error == "line 10 '     Physical      P0     |16x(16x)            |hot   YES': Temp 'hot' is not a "
                     "temperature such as '52C'");
    CHECK(nothing_read(r.telemetry));
    text.replace(at, 4, "|N/A");
    text.replace(text.find("On-die, EDC"), 11, "Off        ");
    r = parse_gmi_table_telemetry(text, 0);
    REQUIRE(r.error.empty());
    CHECK(!r.telemetry.temperature_c);
    CHECK(r.telemetry.ecc == false);
    CHECK(has(r.telemetry.reason, "temperature: mthreads-gmi printed 'N/A'"));
  }
}

TEST_CASE("zl::backend_musa::read_telemetry")
{
  FakeVendorHost host;
  const zl::sdk::Device device{5, "7c1e0a52-93d4-4b6f-a1e8-0f2d5c8b9e31", "MTT S5000", 0, "5"};

  SUBCASE("the table answers for the GPU's index")
  {
    host.on("mthreads-gmi", real(k_s5000x8));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(host.calls() == std::vector<std::string>{"mthreads-gmi"});
    CHECK(t.temperature_c == 50);
    CHECK(t.ecc == true);
    CHECK(t.driver_version == "5.1.0-server");
  }
  SUBCASE("published through the descriptor's guard")
  {
    host.on("mthreads-gmi", real(k_s5000x8));
    zl_device_info info{};
    info.index = 5;
    zl_telemetry out{};
    out.struct_size = sizeof(out);
    REQUIRE(zl::sdk::guarded_telemetry<read_telemetry>(host.api(), &info, &out) == ZL_OK);
    CHECK(out.present == (ZL_TEL_TEMPERATURE | ZL_TEL_ECC | ZL_TEL_DRIVER));
    CHECK(out.temperature_c == 50);
    CHECK(out.ecc == 1u);
    CHECK(std::string(out.source) == "mthreads-gmi");
  }
  SUBCASE("gmi missing: nothing read, the reason names it")
  {
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "mthreads-gmi not found on PATH");
  }
  SUBCASE("gmi exits non-zero: its code and what it said")
  {
    host.on("mthreads-gmi", "Failed to initialize MTML: Driver Not Loaded\n", 255);
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "mthreads-gmi exited with code 255: 'Failed to initialize MTML: Driver Not Loaded'");
  }
  SUBCASE("a table without the GPU: the parse error")
  {
    host.on("mthreads-gmi", real(k_s5000_cut));
    const Telemetry t = read_telemetry(host.api(), device);
    CHECK(nothing_read(t));
    CHECK(t.reason == "mthreads-gmi output not understood: mthreads-gmi lists no GPU 5 (it lists 0, 1, 2)");
  }
}
