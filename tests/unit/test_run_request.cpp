// The fallbacks of the options `zl run`, `zl plan`, `zl batch`, `zl sweep` and `zl ab` share:
// option, then the earlier harness's variable (an empty one is unset), then the default.
#include "run/request.hpp"

#include "temp_dir.hpp"
#include "util/error.hpp"

#include <doctest/doctest.h>

#include <boost/filesystem.hpp>

#include <cstdlib>
#include <fstream>
#include <optional>

using namespace zl;

namespace {

// Sets (or, with nullptr, unsets) a variable for the length of a test.
class Variable
{
public:
  Variable(const char* name, const char* value) : m_name(name)
  {
    if (const char* old = std::getenv(name)) {
      m_old = old;
    }
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~Variable() { m_old ? ::setenv(m_name, m_old->c_str(), 1) : ::unsetenv(m_name); }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// Works in another folder for the length of a test.
class WorkingFolder
{
public:
  explicit WorkingFolder(const std::string& dir) : m_old(boost::filesystem::current_path())
  {
    boost::filesystem::current_path(dir);
  }
  ~WorkingFolder() { boost::filesystem::current_path(m_old); }

private:
  boost::filesystem::path m_old;
};

} // namespace

TEST_CASE("zl::run::python_of: --python, else ZL_PYTHON, else python3; an empty ZL_PYTHON is unset")
{
  Variable unset("ZL_PYTHON", nullptr);
  CHECK(run::python_of(std::nullopt) == "python3");
  CHECK(run::python_of(std::string("/opt/py")) == "/opt/py");
  Variable empty("ZL_PYTHON", "");
  CHECK(run::python_of(std::nullopt) == "python3");
  Variable set("ZL_PYTHON", "/env/py");
  CHECK(run::python_of(std::nullopt) == "/env/py");
  CHECK(run::python_of(std::string("/opt/py")) == "/opt/py");
}

TEST_CASE("zl::run::locate_flaggems: --flaggems, else FLAGGEMS_DIR, else the working folder with a conftest")
{
  test::TempDir dir;
  boost::filesystem::create_directories(dir / "fg/benchmark");
  test::TempDir elsewhere;
  Variable unset("FLAGGEMS_DIR", nullptr);
  run::Request r;
  {
    WorkingFolder in(dir / "fg");
    run::locate_flaggems(r, std::nullopt);
    CHECK(r.flaggems_dir.empty()); // no benchmark/conftest.py yet
    CHECK(r.flaggems_dir_from == "--flaggems");
    std::ofstream(dir / "fg/benchmark/conftest.py") << "\n";
    run::locate_flaggems(r, std::nullopt);
    CHECK(r.flaggems_dir == ".");
    CHECK(r.flaggems_dir_from == "the working folder");
    Variable set("FLAGGEMS_DIR", "/from/env");
    run::locate_flaggems(r, std::nullopt);
    CHECK(r.flaggems_dir == "/from/env");
    CHECK(r.flaggems_dir_from == "FLAGGEMS_DIR");
    run::locate_flaggems(r, std::string("/given"));
    CHECK(r.flaggems_dir == "/given");
    CHECK(r.flaggems_dir_from == "--flaggems");
    run::locate_flaggems(r, std::string("")); // an empty option falls back like an absent one
    CHECK(r.flaggems_dir_from == "FLAGGEMS_DIR");
  }
  WorkingFolder in(elsewhere.path());
  Variable empty("FLAGGEMS_DIR", "");
  run::locate_flaggems(r, std::nullopt);
  CHECK(r.flaggems_dir.empty());
}

TEST_CASE("zl::run::apply_options: the variables zl run reads, and SHAPE_MODE over SHAPE_FILE")
{
  Variable level("BENCH_LEVEL", "comprehensive");
  Variable shape_file("SHAPE_FILE", "/s.yaml");
  Variable shape_mode("SHAPE_MODE", nullptr);
  Variable replay("REPLAY_FROM", "");
  Variable isolate("ZL_ISOLATE_TUNER_CACHE", "1");
  run::Request r;
  run::GivenOptions given;
  given.flaggems = "/fg";
  run::apply_options(r, given);
  CHECK(r.level == "comprehensive");
  CHECK(r.shape_file == "/s.yaml");
  CHECK(!r.shape_mode_upstream);
  CHECK(r.replay_from.empty());
  CHECK(r.isolate_tuner_cache);
  given.level = "core";
  given.shape_mode = "upstream";
  run::apply_options(r, given);
  CHECK(r.level == "core");
  CHECK(r.shape_mode_upstream);
  CHECK(r.shape_file.empty()); // SHAPE_MODE=upstream outranks the SHAPE_FILE variable
  given.shape_mode = "up";
  CHECK_THROWS_AS(run::apply_options(r, given), Error);
}
