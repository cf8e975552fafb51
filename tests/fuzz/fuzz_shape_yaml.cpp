// A shape file (core_shapes.yaml or --shape-file) as `zl plan` and `zl sweep` read it: the
// preflight's check, then the resolution of a BLAS op and an elementwise op of the fixture tree
// tests/fixtures/shapes_flaggems against it.
#include "fuzz_util.hpp"
#include "run/preflight.hpp"
#include "shapes/shape_resolver.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const std::string file = zl::fuzz::scratch() + "/shapes.yaml";
  static const std::string tree = ZL_FIXTURE_DIR "/shapes_flaggems";
  zl::fuzz::put_file(file, zl::fuzz::as_text(data, size));
  for (const auto& [module, op] : {std::pair{"benchmark/test_mm.py", "mm"}, {"benchmark/test_more.py", "abs"}}) {
    try {
      zl::run::check_shape_file(tree, module, op, file);
    } catch (const zl::Error&) {
    }
    try {
      zl::shapes::resolve_shapes({tree, module, op, file});
    } catch (const zl::Error&) {
    }
  }
  return 0;
}
