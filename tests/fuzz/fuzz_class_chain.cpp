// The benchmark class chain (MRO) across a test module and benchmark/base.py. Input: the test
// module, k_part_separator, base.py. Sibling modules are not read (no benchmark folder).
#include "fuzz_util.hpp"
#include "shapes/class_chain.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto parts = zl::fuzz::split_parts(zl::fuzz::as_text(data, size), 2);
  try {
    auto test = zl::shapes::scan_module(parts[0], "benchmark/test_fuzz.py");
    auto base = zl::shapes::scan_module(parts[1], "benchmark/base.py");
    const zl::shapes::ClassChains chains(test, base);
    chains.constructions();
    for (const auto& c : test.classes) {
      chains.chain(c.name, test);
    }
    for (const auto& c : base.classes) {
      chains.chain("base." + c.name, test);
    }
  } catch (const zl::Error&) {
  }
  return 0;
}
