// Python source as the shape resolver tokenizes a benchmark module. SyntaxError is the
// tokenizer's one error.
#include "fuzz_util.hpp"
#include "shapes/py_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    for (const auto& t : zl::shapes::tokenize(zl::fuzz::as_text(data, size))) {
      if (t.kind == zl::shapes::TokenKind::name) {
        zl::shapes::is_keyword(t.text);
      }
    }
  } catch (const zl::shapes::SyntaxError&) {
  }
  return 0;
}
