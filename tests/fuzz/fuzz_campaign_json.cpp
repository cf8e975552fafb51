// campaign.json of an earlier campaign, as `zl batch --resume` reads it. Differential: what
// caliber_json writes of what was read parses back to the same caliber.
#include "batch/caliber.hpp"
#include "fuzz_util.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  zl::batch::Caliber c;
  try {
    c = zl::batch::parse_caliber_json(std::string(zl::fuzz::as_text(data, size)), "campaign.json");
  } catch (const zl::Error&) {
    return 0;
  }
  const auto back = zl::batch::parse_caliber_json(zl::batch::caliber_json(c), "campaign.json");
  if (!zl::batch::caliber_differences(c, back).empty() || back.dtypes != c.dtypes) {
    __builtin_trap();
  }
  return 0;
}
