// Device choice under an inherited mask (issue 10.2, 10.3): the core's generic reading for a
// module without filter_visible (ABI 1.0), and --device / --devices on top of it. The test module
// fakegpu lists TEST-fakegpu-0 and -1; its descriptor copy is given a visibility variable here.
#include "devices/select.hpp"
#include "loader/module.hpp"
#include "util/error.hpp"

#include "fixture.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using zl::loader::load_module;
using zl::test::add_test_module;
using zl::test::TempDir;

TEST_CASE("zl::devices::choose_one and choose_list")
{
  TempDir dir;
  auto m = load_module(add_test_module(dir, "fakegpu"), "test");
  REQUIRE(m.state == zl::loader::ModuleState::loaded);
  m.desc.visibility_var = "ZL_TEST_VISIBLE_DEVICES";
  m.desc.filter_visible = nullptr; // the core's generic reading

  SUBCASE("no mask: every device, pinned by visibility_id")
  {
    ::unsetenv("ZL_TEST_VISIBLE_DEVICES");
    const auto e = m.enumerate();
    CHECK_FALSE(e.masked);
    CHECK(m.inherited_mask().empty());
    CHECK(zl::devices::choose_list(m, std::nullopt, "--devices").size() == 2);
    CHECK(zl::devices::choose_one(m, "").index == 0);
  }
  SUBCASE("a mask by UUID: only that device, and a device outside it is refused")
  {
    ::setenv("ZL_TEST_VISIBLE_DEVICES", "TEST-fakegpu-1", 1);
    const auto e = m.enumerate();
    CHECK(e.masked);
    CHECK(e.mask == "ZL_TEST_VISIBLE_DEVICES=TEST-fakegpu-1");
    CHECK(m.inherited_mask() == "ZL_TEST_VISIBLE_DEVICES=TEST-fakegpu-1");
    const auto d = zl::devices::choose_one(m, "");
    CHECK(d.index == 1);
    CHECK(d.pin == "TEST-fakegpu-1");
    const auto all = zl::devices::choose_list(m, std::string("all"), "--devices");
    REQUIRE(all.size() == 1);
    CHECK(all[0].index == 1);
    CHECK_THROWS_WITH_AS(zl::devices::choose_one(m, "0"),
                         doctest::Contains("is outside the visibility mask this process inherited, "
                                           "ZL_TEST_VISIBLE_DEVICES=TEST-fakegpu-1"),
                         zl::Error);
  }
  SUBCASE("the generic reading stops at the first entry that names no device")
  {
    ::setenv("ZL_TEST_VISIBLE_DEVICES", "1,x,0", 1);
    const auto e = m.enumerate();
    CHECK_FALSE(e.devices[0].visible);
    CHECK(e.devices[1].visible);
    CHECK(e.mask_note.find("entry 2 'x' names no device") != std::string::npos);
    ::setenv("ZL_TEST_VISIBLE_DEVICES", "", 1);
    CHECK_THROWS_WITH_AS(zl::devices::choose_one(m, ""), doctest::Contains("hides every one"), zl::Error);
  }
  SUBCASE("a list names each device once and is never empty")
  {
    ::unsetenv("ZL_TEST_VISIBLE_DEVICES");
    CHECK_THROWS_WITH_AS(zl::devices::choose_list(m, std::string("0,TEST-fakegpu-0"), "--devices"),
                         doctest::Contains("--devices: device TEST-fakegpu-0 is listed twice ('0' and "
                                           "'TEST-fakegpu-0' are both device 0"),
                         zl::Error);
    CHECK_THROWS_WITH_AS(zl::devices::choose_list(m, std::string(",,"), "--devices"),
                         doctest::Contains("--devices ',,' has an empty entry"), zl::Error);
    CHECK_THROWS_WITH_AS(zl::devices::choose_list(m, std::string(""), "--gpus"),
                         doctest::Contains("--gpus '' names no device"), zl::Error);
    CHECK(zl::devices::choose_list(m, std::string("1,0"), "--devices").front().index == 1);
  }
  ::unsetenv("ZL_TEST_VISIBLE_DEVICES");
}
