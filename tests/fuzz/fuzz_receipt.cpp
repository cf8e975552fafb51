// `zl receipt --verify` of a folder someone else wrote. Input: receipt.json, k_part_separator,
// run_identity.json, k_part_separator, plan.json, k_part_separator, a result file; written into a
// run folder, then verified. Differential: a receipt zl makes of the folder verifies clean.
#include "fuzz_util.hpp"
#include "receipt/receipt.hpp"
#include "util/error.hpp"

#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto parts = zl::fuzz::split_parts(zl::fuzz::as_text(data, size), 4);
  static const std::string dir = zl::fuzz::scratch();
  zl::fuzz::put_file(dir + "/receipt.json", parts[0]);
  zl::fuzz::put_file(dir + "/run_identity.json", parts[1]);
  zl::fuzz::put_file(dir + "/plan.json", parts[2]);
  zl::fuzz::put_file(dir + "/run.log", parts[3]);
  std::vector<std::string> added;
  try {
    zl::receipt::verify_receipt(dir, added);
  } catch (const zl::Error&) {
  }
  std::string made;
  try {
    made = zl::receipt::receipt_json(zl::receipt::make_receipt(dir));
  } catch (const zl::Error&) {
    return 0;
  }
  zl::fuzz::put_file(dir + "/receipt.json", made);
  added.clear();
  if (!zl::receipt::verify_receipt(dir, added).empty() || !added.empty()) {
    __builtin_trap();
  }
  return 0;
}
