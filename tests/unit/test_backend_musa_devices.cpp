// Moore Threads enumeration: the gmi CSV and -q parsers on constructed outputs, and enumerate() with a
// fake host, including the fallback from the CSV form to `mthreads-gmi -q` on older drivers.
#include "musa_devices.hpp"

#include "fake_vendor_host.hpp"
#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_musa;
using zl::test::Enumeration;
using zl::test::FakeVendorHost;
using zl::test::read_fixture;

namespace {

constexpr uint64_t k_mib = uint64_t{1} << 20;
constexpr uint64_t k_gib = k_mib << 10;
const std::string k_csv = "mthreads-gmi --query-gpu=index,uuid,name,memory.total --format=csv,noheader";
const std::string k_query = "mthreads-gmi -q";

bool has(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

LibraryResult mtml_absent()
{
  LibraryResult r;
  r.detail = "libmtml.so: cannot open shared object file; libmtml.so.2: cannot open shared object file";
  return r;
}

LibraryResult mtml_failing()
{
  LibraryResult r;
  r.state = LibraryResult::State::failed;
  r.detail = "mtmlLibraryInit returned 1";
  return r;
}

void check_two(const std::vector<Device>& d)
{
  REQUIRE(d.size() == 2);
  CHECK(d[0].index == 0);
  CHECK(d[0].uuid == "7c1e0a52-93d4-4b6f-a1e8-0f2d5c8b9e31");
  CHECK(d[0].name == "MTT S5000");
  CHECK(d[0].memory_bytes == 81920 * k_mib);
  CHECK(d[0].visibility_id == "0");
  CHECK(d[1].index == 1);
  CHECK(d[1].uuid == "2d8f4b6a-1c3e-4f5a-9b7d-8e0a2c4f6b13");
  CHECK(d[1].name == "MTT S4000");
  CHECK(d[1].memory_bytes == 49152 * k_mib);
  CHECK(d[1].visibility_id == "1");
}

} // namespace

TEST_CASE("zl::backend_musa::parse_gmi_csv")
{
  SUBCASE("two GPUs, memory with its MiB unit")
  {
    check_two(parse_gmi_csv(read_fixture("smi/musa/mthreads-gmi-csv-2gpu.txt")).devices);
  }
  SUBCASE("empty output lists nothing")
  {
    const auto r = parse_gmi_csv(read_fixture("smi/musa/mthreads-gmi-csv-empty.txt"));
    CHECK(r.ok());
    CHECK(r.devices.empty());
  }
  SUBCASE("truncated output quotes the cut line")
  {
    const auto r = parse_gmi_csv(read_fixture("smi/musa/mthreads-gmi-csv-truncated.txt"));
    CHECK(has(r.error, "ends mid-line at line 2 '1, 2d8f4b6a-1c3e-4f5a-9b7d'"));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_gmi_csv(read_fixture("smi/musa/mthreads-gmi-csv-garbage.txt"));
    CHECK(has(r.error, "line 1 'mthreads-gmi: unrecognized option --query-gpu=index"));
  }
  SUBCASE("a memory field that is not a size")
  {
    const auto r = parse_gmi_csv("0, 7c1e0a52-93d4-4b6f-a1e8-0f2d5c8b9e31, MTT S5000, lots\n");
    CHECK(has(r.error, "memory.total 'lots' is not a size"));
  }
}

TEST_CASE("zl::backend_musa::parse_gmi_query")
{
  SUBCASE("two GPU blocks, tolerant of the spacing around colons")
  {
    check_two(parse_gmi_query(read_fixture("smi/musa/mthreads-gmi-q-2gpu.txt")).devices);
  }
  SUBCASE("empty output lists nothing")
  {
    const auto r = parse_gmi_query(read_fixture("smi/musa/mthreads-gmi-q-empty.txt"));
    CHECK(r.ok());
    CHECK(r.devices.empty());
  }
  SUBCASE("truncated output quotes the cut line")
  {
    const auto r = parse_gmi_query(read_fixture("smi/musa/mthreads-gmi-q-truncated.txt"));
    CHECK(has(r.error, "ends mid-line at line 22 '    Product Brand"));
  }
  SUBCASE("garbage quotes the line")
  {
    const auto r = parse_gmi_query(read_fixture("smi/musa/mthreads-gmi-q-garbage.txt"));
    CHECK(has(r.error, "no GPU<n> block; line 1 'Segmentation fault in libmtml"));
  }
  SUBCASE("a block cut short is named by its header line")
  {
    const auto r = parse_gmi_query("GPU 3 : 00000000:2a:00.0\n    Product Name : MTT S80\n");
    CHECK(has(r.error, "the block at line 1 'GPU 3 : 00000000:2a:00.0' has no GPU UUID line"));
  }
  SUBCASE("fewer blocks than the attached count")
  {
    const auto r = parse_gmi_query("Attached GPUs : 2\nGPU0\n  Product Name : MTT S80\n  GPU UUID : u\n"
                                   "  Memory Usage\n    Total : 16384MiB\n");
    CHECK(has(r.error, "line 1 'Attached GPUs : 2' announces 2 GPUs but the report has 1"));
  }
  SUBCASE("a BAR1 total is not the device memory")
  {
    const auto r = parse_gmi_query("GPU0\n  Product Name : MTT S80\n  GPU UUID : u\n  BAR1 Memory Usage\n"
                                   "    Total : 256MiB\n  FB Memory Usage\n    Total : 16GiB\n");
    REQUIRE(r.ok());
    CHECK(r.devices.at(0).memory_bytes == 16 * k_gib);
  }
}

TEST_CASE("zl::backend_musa::parse_memory")
{
  uint64_t b = 0;
  CHECK((parse_memory("81920MiB", b) && b == 81920 * k_mib));
  CHECK((parse_memory(" 81920 MiB ", b) && b == 81920 * k_mib));
  CHECK((parse_memory("48GiB", b) && b == 48 * k_gib));
  CHECK((parse_memory("1024", b) && b == 1024 * k_mib));
  CHECK_FALSE(parse_memory("MiB", b));
  CHECK_FALSE(parse_memory("12 parsecs", b));
}

TEST_CASE("zl::backend_musa::enumerate")
{
  FakeVendorHost host;
  Enumeration e;

  SUBCASE("the CSV query answers")
  {
    host.on(k_csv, read_fixture("smi/musa/mthreads-gmi-csv-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "mthreads-gmi --query-gpu");
    CHECK(std::string(e.devices[1].visibility_id) == "1");
    CHECK(host.calls() == std::vector<std::string>{k_csv});
  }
  SUBCASE("the real library step: MTML is not installed here")
  {
    if (query_mtml().state != LibraryResult::State::absent) {
      MESSAGE("libmtml.so is loadable on this machine; skipping the tool-path check");
      return;
    }
    host.on(k_csv, read_fixture("smi/musa/mthreads-gmi-csv-2gpu.txt"));
    REQUIRE(enumerate(host.api(), &e.out) == ZL_OK);
    CHECK(e.out.count == 2);
  }
  SUBCASE("an older gmi refuses --query-gpu: mthreads-gmi -q answers")
  {
    host.on(k_csv, "mthreads-gmi: invalid option -- '-query-gpu'\n", 2);
    host.on(k_query, read_fixture("smi/musa/mthreads-gmi-q-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_OK);
    REQUIRE(e.out.count == 2);
    CHECK(e.source() == "mthreads-gmi -q");
    CHECK(std::string(e.devices[0].uuid) == "7c1e0a52-93d4-4b6f-a1e8-0f2d5c8b9e31");
    CHECK(e.devices[1].memory_bytes == 49152 * k_mib);
    CHECK(has(e.reason(), "mthreads-gmi --query-gpu exited with code 2"));
    CHECK(host.calls() == std::vector<std::string>{k_csv, k_query});
  }
  SUBCASE("unparseable CSV also falls back to -q")
  {
    host.on(k_csv, read_fixture("smi/musa/mthreads-gmi-csv-garbage.txt"));
    host.on(k_query, read_fixture("smi/musa/mthreads-gmi-q-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(has(e.reason(), "mthreads-gmi --query-gpu output not understood: line 1"));
  }
  SUBCASE("gmi missing: no devices, and the reason names the tool and the library")
  {
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_OK);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "mthreads-gmi not found on PATH and libmtml.so not loadable (libmtml.so: cannot open"));
  }
  SUBCASE("both forms exit non-zero: both exit codes")
  {
    host.on(k_csv, "", 9);
    host.on(k_query, "Failed to initialize MTML: Driver Not Loaded\n", 9);
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_ERR_TOOL_FAILED);
    CHECK(e.out.count == 0);
    CHECK(has(e.reason(), "mthreads-gmi -q exited with code 9: 'Failed to initialize MTML: Driver Not Loaded'"));
    CHECK(has(e.reason(), "mthreads-gmi --query-gpu exited with code 9: (nothing on standard output)"));
  }
  SUBCASE("-q garbled after the CSV failed: a parse error quoting -q's line")
  {
    host.on(k_csv, "", 2);
    host.on(k_query, read_fixture("smi/musa/mthreads-gmi-q-truncated.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_absent) == ZL_ERR_PARSE);
    CHECK(has(e.reason(), "mthreads-gmi -q output not understood: output ends mid-line at line 22"));
  }
  SUBCASE("MTML present but failing: the failure is reported beside the devices")
  {
    host.on(k_csv, read_fixture("smi/musa/mthreads-gmi-csv-2gpu.txt"));
    REQUIRE(enumerate_with(host.api(), &e.out, &mtml_failing) == ZL_OK);
    CHECK(e.out.count == 2);
    CHECK(e.source() == "mthreads-gmi (MTML failed)");
    CHECK(has(e.reason(), "MTML failed (mtmlLibraryInit returned 1)"));
  }
}
