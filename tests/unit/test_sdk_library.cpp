#include <zl/sdk/library.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>

using namespace zl;

namespace {

// libc is in every process, so binding from it needs no vendor library.
constexpr const char* k_libc = "libc.so.6";
using strlen_fn = size_t (*)(const char*);

} // namespace

TEST_CASE("zl::sdk::Library")
{
  sdk::Library none({"libzl-no-such-library.so.1", "libzl-no-such-either.so"});
  CHECK_FALSE(none.loaded());
  CHECK(none.error().find("libzl-no-such-library.so.1") != std::string::npos);
  CHECK(none.error().find("; ") != std::string::npos); // both names' dlerror() texts
  strlen_fn fn = nullptr;
  none.bind("strlen", fn); // a null handle must not search the whole process
  CHECK((fn == nullptr));
  sdk::LibraryResult result;
  CHECK_FALSE(none.usable(result));
  CHECK(result.state == sdk::LibraryResult::State::absent);
  CHECK(result.detail == none.error());

  sdk::Library libc({"libzl-no-such-library.so.1", k_libc});
  REQUIRE(libc.loaded());
  CHECK(libc.soname() == k_libc);
  libc.bind("strlen", fn);
  REQUIRE((fn != nullptr));
  CHECK(fn("four") == 4);
  CHECK(libc.bind_first({"zl_no_such_function", "strlen"}, fn) == "strlen");
  CHECK(libc.usable(result));

  strlen_fn missing = nullptr;
  CHECK(libc.bind_first({"zl_no_such_v2", "zl_no_such"}, missing).empty());
  CHECK((missing == nullptr));
  libc.bind("zl_no_such_other", missing); // only the first missing name is kept
  CHECK(libc.missing() == "zl_no_such_v2 or zl_no_such");
  CHECK_FALSE(libc.usable(result));
  CHECK(result.state == sdk::LibraryResult::State::failed);
  CHECK(result.detail == "libc.so.6 has no zl_no_such_v2 or zl_no_such");
}

TEST_CASE("zl::sdk::library_note")
{
  sdk::LibraryResult lib;
  lib.detail = "cannot open";
  CHECK(sdk::library_note(lib, "libnvidia-ml.so.1", "NVML") == "libnvidia-ml.so.1 not loadable (cannot open)");
  lib.state = sdk::LibraryResult::State::failed;
  CHECK(sdk::library_note(lib, "libnvidia-ml.so.1", "NVML") == "NVML failed (cannot open)");
  lib.state = sdk::LibraryResult::State::skipped;
  CHECK(sdk::library_note(lib, "libnvidia-ml.so.1", "NVML") == "NVML skipped because cannot open");
  lib.state = sdk::LibraryResult::State::ok;
  CHECK(sdk::library_note(lib, "libnvidia-ml.so.1", "NVML").empty());
}
