#include "receipt/sha256.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <fstream>

TEST_CASE("zl::receipt::sha256")
{
  // FIPS 180-2 test vectors.
  CHECK(zl::receipt::sha256_text("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(zl::receipt::sha256_text("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  zl::test::TempDir dir;
  std::string big(200000, 'a'); // spans several read chunks
  std::ofstream(dir / "big", std::ios::binary) << big;
  CHECK(zl::receipt::sha256_file(dir / "big") == zl::receipt::sha256_text(big));
  CHECK_THROWS_AS(zl::receipt::sha256_file(dir / "absent"), zl::Error);
}
