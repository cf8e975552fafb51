// Every way a module can fail to load, each with its exact message (the Vulkan loader's way).
#include "loader/module.hpp"

#include "fixture.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sys/stat.h>

using zl::loader::load_module;
using zl::loader::ModuleState;
using zl::test::add_test_module;
using zl::test::TempDir;

namespace {

std::string failure(const std::string& path)
{
  const auto m = load_module(path, "test");
  CHECK(m.state == ModuleState::failed);
  return m.error;
}

void patch_byte(const std::string& path, std::streamoff offset, unsigned char value)
{
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(offset);
  f.put(static_cast<char>(value));
}

} // namespace

TEST_CASE("zl::loader::load_module")
{
  TempDir dir;

  SUBCASE("a good module loads and answers")
  {
    const auto path = add_test_module(dir, "fakegpu");
    const auto m = load_module(path, "test");
    REQUIRE(m.state == ModuleState::loaded);
    CHECK(m.error.empty());
    CHECK(m.name() == "fakegpu");
    CHECK(m.aliases() == std::vector<std::string>{"fg"});
    CHECK(m.abi_version() == "1.3");
    const auto e = m.enumerate();
    CHECK(e.status == ZL_OK);
    REQUIRE(e.devices.size() == 2);
    CHECK(e.devices[1].uuid == "TEST-fakegpu-1");
    CHECK(e.devices[1].memory_bytes == (2ULL << 30));
  }

  SUBCASE("a newer minor with a larger descriptor loads")
  {
    const auto m = load_module(add_test_module(dir, "newerminor"), "test");
    CHECK(m.state == ModuleState::loaded);
    CHECK(m.abi_version() == "1.9");
  }

  SUBCASE("a module's telemetry, field by field")
  {
    const auto m = load_module(add_test_module(dir, "telemetrygpu"), "test");
    REQUIRE(m.has_telemetry());
    const auto e = m.enumerate();
    REQUIRE(e.devices.size() == 1);
    const auto r = m.read_telemetry(e.devices[0], zl::devices::Phase::during);
    CHECK(r.status == ZL_OK);
    CHECK(r.source == "test");
    CHECK(r.device == "TEST-telemetrygpu-0");
    CHECK(r.sm_clock_mhz == 1000u);
    CHECK(r.sm_clock_max_mhz == 2000u);
    CHECK_FALSE(r.mem_clock_mhz.has_value());
    CHECK(r.locked_mhz == 0u);
    CHECK(r.temperature_c == 71);
    CHECK(r.power_w == doctest::Approx(350.5));
    CHECK(r.power_limit_w == doctest::Approx(350.0));
    CHECK(r.throttle == ZL_THROTTLE_POWER);
    CHECK(r.throttle_text == "SwPowerCap");
    CHECK(r.driver == "1.2.3-TEST-telemetrygpu-0");
    CHECK_FALSE(r.ecc.has_value());
    CHECK(r.at > 0);
  }

  SUBCASE("an ABI 1.1 module has no telemetry, whatever follows its descriptor")
  {
    const auto m = load_module(add_test_module(dir, "olderminor"), "test");
    REQUIRE(m.state == ModuleState::loaded);
    CHECK(m.abi_version() == "1.1");
    CHECK_FALSE(m.has_telemetry());
    const auto r = m.read_telemetry(m.enumerate().devices.at(0), zl::devices::Phase::now);
    CHECK(r.status == ZL_ERR_UNAVAILABLE);
    CHECK(r.reason == "backend olderminor (ABI 1.1) reads no telemetry");
    CHECK_FALSE(load_module(add_test_module(dir, "fakegpu"), "test").has_telemetry());
  }

  SUBCASE("a module's spec-peak table, entry by entry")
  {
    const auto m = load_module(add_test_module(dir, "peakgpu"), "test");
    REQUIRE(m.has_peaks());
    const auto table = m.peaks();
    REQUIRE(table.count == 2);
    CHECK(std::string(table.entries[1].device_name) == "TEST-DEVICE-0 (rev 2)");
    const std::vector<zl::devices::PeakTable> tables{table};
    const auto p = zl::devices::spec_peak(m.enumerate().devices.at(0).name, tables);
    REQUIRE(p);
    CHECK(p->sku == "Test SKU 80GB");
    CHECK(p->bandwidth_gbps == 1000);
    CHECK(p->fp16_tflops == 500);
    CHECK_FALSE(p->fp32_tflops.has_value()); // 0: the sheet gives none
    CHECK(zl::devices::spec_peak("test device 0 (rev 2)", tables)->sku == "Test SKU 80GB");
    // ABI 1.3 without a table: one, empty.
    const auto fake = load_module(add_test_module(dir, "fakegpu"), "test");
    CHECK(fake.has_peaks());
    CHECK(fake.peaks().count == 0);
  }

  SUBCASE("an ABI 1.2 module loads and has no peaks, whatever follows its descriptor")
  {
    const auto m = load_module(add_test_module(dir, "abi12gpu"), "test");
    REQUIRE(m.state == ModuleState::loaded);
    CHECK(m.abi_version() == "1.2");
    CHECK_FALSE(m.has_peaks());
    CHECK(m.peaks().entries == nullptr);
    CHECK(m.peaks().count == 0);
    CHECK(m.enumerate().devices.size() == 1);
    CHECK_FALSE(zl::devices::spec_peak("Test Device 0", {m.peaks()}).has_value());
    CHECK_FALSE(load_module(add_test_module(dir, "olderminor"), "test").has_peaks());
  }

  SUBCASE("a peak count without a table")
  {
    const auto path = add_test_module(dir, "nullpeaks");
    CHECK(failure(path) == path + ": declares spec peaks but peaks is NULL");
  }

  SUBCASE("not a shared object")
  {
    const auto path = dir / "libzl_backend_text.so";
    std::ofstream(path) << "this is a text file\n";
    CHECK(failure(path) == path + ": not a shared object (no ELF header)");
  }

  SUBCASE("built for another architecture")
  {
    const auto path = add_test_module(dir, "fakegpu");
    patch_byte(path, 18, 183); // e_machine = EM_AARCH64
    CHECK(failure(path) == path + ": built for aarch64 (64-bit), but this zl runs on x86-64 (64-bit)");
    patch_byte(path, 4, 1); // EI_CLASS = ELFCLASS32
    CHECK(failure(path) == path + ": built for aarch64 (32-bit), but this zl runs on x86-64 (64-bit)");
  }

  SUBCASE("a missing dependency names the missing soname")
  {
    const auto path = add_test_module(dir, "missingdep");
    CHECK(failure(path) ==
          path +
              ": needs libzl_test_missing.so, which the dynamic loader cannot find (libzl_test_missing.so: cannot "
              "open shared object file: No such file or directory); install the package that provides it or add "
              "its folder to LD_LIBRARY_PATH (`ldd " +
              path + "` lists every missing library)");
  }

  SUBCASE("an undefined symbol names the symbol")
  {
    const auto path = add_test_module(dir, "undefsym");
    CHECK(failure(path) ==
          path + ": cannot be loaded: undefined symbol zl_test_defined_nowhere (" + path +
              ": undefined symbol: zl_test_defined_nowhere); it was linked against another version of a "
              "library it uses");
  }

  SUBCASE("no entry point")
  {
    const auto path = add_test_module(dir, "noentry");
    CHECK(failure(path) == path + ": does not export zl_backend_get_descriptor, so it is not a zl backend (build it "
                                  "with zl_add_backend() from find_package(zl))");
  }

  SUBCASE("an entry point that lives in a dependency is not the module's")
  {
    const auto path = add_test_module(dir, "entryindep");
    const auto error = failure(path);
    CHECK(error.rfind(path + ": zl_backend_get_descriptor resolves from ", 0) == 0);
    CHECK(error.find("libzl_test_entry_dep.so, not from the module itself") != std::string::npos);
  }

  SUBCASE("no descriptor")
  {
    const auto path = add_test_module(dir, "nulldesc");
    CHECK(failure(path) == path + ": zl_backend_get_descriptor returned no descriptor");
  }

  SUBCASE("another ABI major")
  {
    const auto path = add_test_module(dir, "abimajor");
    CHECK(failure(path) == path + ": speaks backend ABI 2.3, but this zl speaks 1.3; the major versions must match: "
                                  "rebuild the module against this zl's SDK, or use a zl that speaks 2.x");
  }

  SUBCASE("a descriptor smaller than ABI 1.0's")
  {
    const auto path = add_test_module(dir, "smallstruct");
    CHECK(failure(path) == path + fmt::format(": reports a descriptor of 16 bytes, smaller than the {} bytes ABI 1.0 "
                                              "requires; the module was built against a damaged or pre-release header",
                                              ZL_DESCRIPTOR_MIN_SIZE_1_0));
  }

  SUBCASE("a name that disagrees with the file name")
  {
    const auto path = add_test_module(dir, "mismatch");
    CHECK(failure(path) ==
          path + ": calls itself 'somethingelse', but its file name says 'mismatch'; the two must agree");
  }

  SUBCASE("a NULL string field")
  {
    const auto path = add_test_module(dir, "nullfield");
    CHECK(failure(path) == path + ": descriptor field version is NULL (use \"\" for none)");
  }

  SUBCASE("an alias that is no name")
  {
    const auto path = add_test_module(dir, "badalias");
    CHECK(failure(path) == path + ": declares the alias 'Bad-Alias', which is not a backend name ([a-z0-9_]+)");
  }

  SUBCASE("a module others can write is refused")
  {
    const auto path = add_test_module(dir, "fakegpu");
    ::chmod(path.c_str(), 0666);
    CHECK(failure(path) == path + ": refused: the file " + path +
                               " is writable by group and others (mode 0666), so "
                               "someone else could replace the code zl runs; fix with: chmod go-w " +
                               path);
    ::chmod(path.c_str(), 0755);
    ::chmod(dir.path().c_str(), 0775);
    CHECK(failure(path) == path + ": refused: the folder " + dir.path() +
                               " is writable by its group (mode 0775), so "
                               "someone else could replace the code zl runs; fix with: chmod go-w " +
                               dir.path());
    ::chmod(dir.path().c_str(), 0755);
  }
}

TEST_CASE("zl::loader::capability_names")
{
  CHECK(zl::loader::capability_names(0).empty());
  CHECK(zl::loader::capability_names(ZL_CAP_GRAPH_CAPTURE | ZL_CAP_HOST_FALLBACK) ==
        std::vector<std::string>{"graph_capture", "host_fallback"});
  CHECK(zl::loader::capability_names(uint64_t{1} << 40) == std::vector<std::string>{"bit 40"});
}
