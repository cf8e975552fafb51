// A benchmark module's imports, classes, functions, calls and marks, as zl plan and zl batch
// --all read them (shapes::scan_module), and the markers of each test function.
#include "fuzz_util.hpp"
#include "shapes/py_module.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    const auto module = zl::shapes::scan_module(zl::fuzz::as_text(data, size), "benchmark/test_fuzz.py");
    for (const auto& f : module.functions) {
      zl::shapes::markers_of(module, f);
      module.find_function(f.name);
    }
    for (const auto& c : module.classes) {
      module.find_class(c.name);
    }
    for (const auto& c : module.calls) {
      c.keyword("op_name");
    }
  } catch (const zl::Error&) {
  }
  return 0;
}
