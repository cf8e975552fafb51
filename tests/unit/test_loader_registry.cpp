#include "loader/registry.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using zl::loader::ModuleState;
using zl::loader::Registry;
using zl::loader::SearchDir;
using zl::test::add_test_module;
using zl::test::TempDir;

namespace {

Registry registry_of(const std::vector<const TempDir*>& dirs)
{
  std::vector<SearchDir> search;
  for (const auto* d : dirs) {
    search.push_back({d->path(), "--backend-path"});
  }
  return Registry::discover(search);
}

std::string select_error(const Registry& r, const std::optional<std::string>& name)
{
  try {
    r.select(name, "--backend");
  } catch (const zl::Error& e) {
    CHECK(e.exit_code() == 2);
    return e.what();
  }
  FAIL("select did not throw");
  return {};
}

} // namespace

TEST_CASE("zl::loader::Registry::select by name")
{
  TempDir dir;
  add_test_module(dir, "fakegpu");
  add_test_module(dir, "emptygpu");
  add_test_module(dir, "abimajor");
  const auto r = registry_of({&dir});
  REQUIRE(r.modules().size() == 3);

  CHECK(r.select(std::string("fakegpu"), "--backend").module->name() == "fakegpu");
  CHECK(r.select(std::string("fg"), "ZL_BACKEND").how == "ZL_BACKEND");
  CHECK(r.select(std::string("fg"), "--backend").module->name() == "fakegpu");

  SUBCASE("an unknown name lists what exists and where zl looked")
  {
    CHECK(select_error(r, std::string("fakegp")) ==
          "no backend named 'fakegp' (from --backend): no libzl_backend_fakegp.so and no module with that name or "
          "alias. Did you mean 'fakegpu'?\navailable: emptygpu (alias_emptygpu); fakegpu (fg)\nsearched: " +
              dir.path() + " (--backend-path)");
  }
  SUBCASE("a path is not a name")
  {
    CHECK(select_error(r, std::string("../fakegpu")) ==
          "backend '../fakegpu' (from --backend) is not a backend name: a name is [a-z0-9_]+, never a path; to use a "
          "module in another folder, pass that folder with --backend-path");
    CHECK(select_error(r, std::string("Fake")).find("is not a backend name") != std::string::npos);
  }
  SUBCASE("a module that failed is reported with its reason, never replaced by another")
  {
    const auto error = select_error(r, std::string("abimajor"));
    CHECK(error == "backend 'abimajor' (from --backend) cannot be used: " + dir / "libzl_backend_abimajor.so" +
                       ": speaks backend ABI 2.3, but this zl speaks 1.3; the major versions must match: rebuild the "
                       "module against this zl's SDK, or use a zl that speaks 2.x\nsearched: " +
                       dir.path() + " (--backend-path)");
  }
}

TEST_CASE("zl::loader::Registry::discover conflicts and shadowing")
{
  TempDir first, second;
  add_test_module(first, "twin_a");
  add_test_module(first, "twin_b");
  add_test_module(first, "fakegpu");
  add_test_module(second, "fakegpu");
  const auto r = registry_of({&first, &second});
  REQUIRE(r.modules().size() == 4);

  SUBCASE("two modules claiming one alias both fail")
  {
    const auto a = first / "libzl_backend_twin_a.so";
    const auto b = first / "libzl_backend_twin_b.so";
    CHECK(r.modules()[1].state == ModuleState::failed);
    CHECK(r.modules()[1].error == a + ": claims 'twin' as its alias, and so does " + b +
                                      " (as its alias); two modules cannot answer to one name: remove one of them");
    CHECK(r.modules()[2].state == ModuleState::failed);
    CHECK(select_error(r, std::string("twin")).find("claims 'twin' as its alias") != std::string::npos);
    CHECK(select_error(r, std::string("twin_b")).find("cannot be used: " + b) != std::string::npos);
  }
  SUBCASE("the first file of a name wins; the later one is shadowed")
  {
    const auto& shadowed = r.modules()[3];
    CHECK(shadowed.state == ModuleState::shadowed);
    CHECK(shadowed.error == second / "libzl_backend_fakegpu.so" + ": not loaded, shadowed by " +
                                first / "libzl_backend_fakegpu.so" + " earlier in the search order");
    CHECK(r.select(std::string("fakegpu"), "--backend").module->path == first / "libzl_backend_fakegpu.so");
  }
}

TEST_CASE("zl::loader::Registry::select automatically")
{
  TempDir dir;
  add_test_module(dir, "emptygpu");
  add_test_module(dir, "hostish");

  SUBCASE("no accelerator finds devices: the host fallback, with the reasons")
  {
    const auto r = registry_of({&dir}); // a Selection points into its Registry
    const auto s = r.select(std::nullopt, "");
    CHECK(s.module->name() == "hostish");
    CHECK(s.how == "no accelerator backend found devices (emptygpu: the test module has no devices)");
  }
  SUBCASE("the single backend with devices")
  {
    add_test_module(dir, "fakegpu");
    const auto r = registry_of({&dir}); // a Selection points into its Registry
    const auto s = r.select(std::nullopt, "");
    CHECK(s.module->name() == "fakegpu");
    CHECK(s.how == "the only backend that found devices (2 via test module)");
  }
  SUBCASE("two backends with devices: refuse and ask")
  {
    add_test_module(dir, "fakegpu");
    add_test_module(dir, "othergpu");
    CHECK(select_error(registry_of({&dir}), std::nullopt) ==
          "several backends found devices: fakegpu (2 devices), othergpu (1 devices); choose one with --backend NAME "
          "or ZL_BACKEND");
  }
  SUBCASE("nothing with devices and no host backend")
  {
    TempDir bare;
    add_test_module(bare, "emptygpu");
    CHECK(select_error(registry_of({&bare}), std::nullopt) ==
          "no backend found devices and no host backend is installed (emptygpu: the test module has no devices)\n"
          "searched: " +
              bare.path() + " (--backend-path)");
  }
}

TEST_CASE("zl::loader::search_dirs")
{
  TempDir dir;
  ::unsetenv("ZL_BACKEND_PATH");
  const auto dirs = zl::loader::search_dirs({dir.path(), dir.path()});
  REQUIRE(!dirs.empty());
  CHECK(dirs[0].path == dir.path());
  CHECK(dirs[0].origin == "--backend-path");
  CHECK((dirs.size() < 2 || dirs[1].path != dir.path())); // duplicates keep their first place

  CHECK_THROWS_WITH_AS(zl::loader::search_dirs({dir / "nope"}),
                       (std::string("backend folder ") + dir / "nope" +
                        " (from --backend-path) is not a folder that exists; fix the path or drop it")
                           .c_str(),
                       zl::Error);
  ::setenv("ZL_BACKEND_PATH", (dir.path() + "::" + dir / "gone").c_str(), 1);
  CHECK_THROWS_WITH_AS(zl::loader::search_dirs({}),
                       (std::string("backend folder ") + dir / "gone" +
                        " (from ZL_BACKEND_PATH) is not a folder that exists; fix the path or drop it")
                           .c_str(),
                       zl::Error);
  ::unsetenv("ZL_BACKEND_PATH");
}
