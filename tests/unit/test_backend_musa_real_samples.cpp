// The mthreads-gmi parsers on every real output under tests/fixtures/smi/real/mthreads-gmi (issue
// 10.22; sources in SOURCES.md there). No real `--query-gpu` CSV or `-q` output has been found;
// the samples are the default table, which neither parser may misread as devices.
#include "musa_devices.hpp"

#include "fixture.hpp"

#include <doctest/doctest.h>

using namespace zl::backend_musa;

TEST_CASE("zl::backend_musa gmi parsers on real outputs")
{
  for (const char* name : {"EDGE-tutorial_on_musa-faq-s4000-gmi1.12.2-drv1.2.0-mem-used-exceeds-total.txt",
                           "codeindex-47133595866-vllm-musa-notes-s80-gmi1.14.0-drv2.7.0-x4link.txt",
                           "codeindex-55593752466-s80-gmi2.0.0-drv3.0.0-with-processes.txt",
                           "codeindex-63142327910-paddlefleet-s5000-x8-gmi2.4.1-drv5.1.0-server.txt",
                           "gpustack-issue3511-s4000-x8-gmi2.2.0-drv3.0.0-perf-NA-TRUNCATED.txt",
                           "vllm-omni-pr2337-s5000-gmi2.3.2-drv3.3.5-server-TRUNCATED.txt"}) {
    CAPTURE(name);
    const auto text = zl::test::read_fixture(std::string("smi/real/mthreads-gmi/") + name);
    const auto csv = parse_gmi_csv(text);
    const auto query = parse_gmi_query(text);
    CHECK(csv.devices.empty());
    CHECK(query.devices.empty());
    // The CSV parser quotes the table's first line (the date); the -q parser finds no GPU block,
    // or, in a truncated copy, the cut.
    CHECK(csv.error.find("line 1 '") != std::string::npos);
    CHECK((query.error.find("no GPU<n> block") != std::string::npos ||
           query.error.find("output ends mid-line") != std::string::npos));
  }
}
