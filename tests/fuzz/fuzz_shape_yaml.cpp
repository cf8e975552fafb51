// A shape file (core_shapes.yaml or --shape-file) as `zl plan` and `zl sweep` read it: the
// preflight's check, then the lookup of a BLAS op and an elementwise op of the fixture tree
// tests/fixtures/shapes_flaggems in it. The Python half of the resolution (the targets found in
// the fixture modules, shapes::find_targets) does not depend on the input: it is done once, and
// each input gets the YAML half, the same calls resolve_shapes and check_shape_file make.
#include "fuzz_util.hpp"
#include "run/preflight.hpp"
#include "shapes/shape_resolver.hpp"
#include "util/error.hpp"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const std::string file = zl::fuzz::scratch() + "/shapes.yaml";
  static const std::vector<zl::shapes::Resolution> found = [] {
    const std::string tree = ZL_FIXTURE_DIR "/shapes_flaggems";
    std::vector<zl::shapes::Resolution> all;
    for (const auto& [module, op] : {std::pair{"benchmark/test_mm.py", "mm"}, {"benchmark/test_more.py", "abs"}}) {
      all.push_back(zl::shapes::find_targets({tree, module, op, file}));
    }
    return all;
  }();
  zl::fuzz::put_file(file, zl::fuzz::as_text(data, size));
  for (const auto& targets : found) {
    try {
      zl::run::check_shape_file(targets);
    } catch (const zl::Error&) {
    }
    try {
      auto r = targets;
      zl::shapes::look_up_shapes(r);
    } catch (const zl::Error&) {
    }
  }
  return 0;
}
