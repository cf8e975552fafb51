#include "receipt/receipt.hpp"

#include "fixture.hpp"
#include "temp_dir.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {

// The parts of a fuzz_receipt input (tests/fuzz/fuzz_receipt.cpp): receipt.json, run_identity.json,
// plan.json, run.log.
std::vector<std::string> parts(std::string input)
{
  const std::string separator = "\n=====\n";
  std::vector<std::string> out;
  for (auto at = input.find(separator); out.size() < 3 && at != std::string::npos; at = input.find(separator)) {
    out.push_back(input.substr(0, at));
    input.erase(0, at + separator.size());
  }
  out.push_back(input);
  out.resize(4);
  return out;
}

} // namespace

TEST_CASE("zl::receipt::receipt_json: an identity holding a number beyond a double is an error, not a crash")
{
  // tests/fuzz/regressions/receipt/identity-number-beyond-double: "schema": 11e308 in
  // run_identity.json. RapidJSON read it as infinity, its writer stopped half-way and the next
  // EndArray asserted (fuzz_receipt in CI).
  const auto p = parts(zl::test::read_fixture("../fuzz/regressions/receipt/identity-number-beyond-double"));
  zl::test::TempDir dir;
  const std::vector<std::string> names = {"receipt.json", "run_identity.json", "plan.json", "run.log"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    zl::util::write_file_atomic(dir / names[i], p[i]);
  }
  const auto receipt = zl::receipt::make_receipt(dir.path());
  REQUIRE(receipt.run_dirs.size() == 1);
  try {
    zl::receipt::receipt_json(receipt);
    FAIL("receipt_json accepted an identity holding 11e308");
  } catch (const zl::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("run_identity.json") != std::string::npos);
    CHECK(what.find("beyond the range of a double") != std::string::npos);
  }

  // The same identity with the number in range makes a receipt that verifies clean.
  auto identity = p[1];
  identity.replace(identity.find("11e308"), 6, "1");
  zl::util::write_file_atomic(dir / "run_identity.json", identity);
  zl::util::write_file_atomic(dir / "receipt.json", zl::receipt::receipt_json(zl::receipt::make_receipt(dir.path())));
  std::vector<std::string> added;
  CHECK(zl::receipt::verify_receipt(dir.path(), added).empty());
  CHECK(added.empty());
}

TEST_CASE("zl::receipt::make_receipt: an identity that is not one is refused, naming the file and the key")
{
  zl::test::TempDir dir;
  zl::util::write_file_atomic(dir / "run_identity.json", R"({"zl_binary": "/bin/zl", "backend": {"module": 7}})");
  CHECK_THROWS_WITH_AS(zl::receipt::make_receipt(dir.path()),
                       (dir / "run_identity.json" + " is not a run identity: backend.module is a number, not a string; "
                                                    "it was damaged or edited after the run: restore it, or run the "
                                                    "op again")
                           .c_str(),
                       zl::Error);
  zl::util::write_file_atomic(dir / "run_identity.json", "{\"zl_binary\": ");
  CHECK_THROWS_WITH_AS(zl::receipt::make_receipt(dir.path()),
                       doctest::Contains((dir / "run_identity.json" + " is not valid JSON").c_str()), zl::Error);
}
