#include "run/preflight.hpp"

#include "temp_dir.hpp"

#include <doctest/doctest.h>

#include <fstream>

using zl::run::preflight;
using zl::run::PreflightError;
using zl::run::PreflightInput;
using zl::test::TempDir;

namespace {

std::string failed_check(const PreflightInput& in, std::string* message = nullptr)
{
  try {
    preflight(in);
  } catch (const PreflightError& e) {
    CHECK(e.exit_code() == 3);
    if (message != nullptr) {
      *message = e.what();
    }
    return e.check();
  }
  return "";
}

} // namespace

TEST_CASE("zl::run::preflight checks in order")
{
  TempDir fg;
  PreflightInput in;
  in.flaggems_dir = fg / "missing";
  in.flaggems_dir_from = "--flaggems";
  in.benchmark_file = "benchmark/test_abs.py";
  in.how_resolved = "benchmark/test_abs.py exists";
  in.shape_file = fg / "shapes.yaml";
  in.replay_from = fg / "records";
  in.python = "/no/such/python";

  std::string message;
  CHECK(failed_check(in, &message) == "flaggems_dir");
  CHECK(message == "the FlagGems folder " + fg / "missing" + " (from --flaggems) does not exist");
  in.flaggems_dir = fg.path();
  CHECK(failed_check(in, &message) == "flaggems_dir");
  CHECK(message.find("has no benchmark/conftest.py, so pytest would not know --level and --mode") != std::string::npos);

  boost::filesystem::create_directories(fg / "benchmark");
  std::ofstream(fg / "benchmark/conftest.py") << "\n";
  CHECK(failed_check(in, &message) == "benchmark_file");
  CHECK(message ==
        "the benchmark file " + fg / "benchmark/test_abs.py" + " does not exist (benchmark/test_abs.py exists)");

  std::ofstream(fg / "benchmark/test_abs.py") << "\n";
  CHECK(failed_check(in) == "shape_file");
  std::ofstream(fg / "shapes.yaml") << "\n";
  CHECK(failed_check(in) == "replay_from");
  boost::filesystem::create_directories(fg / "records");
  CHECK(failed_check(in, &message) == "replay_from");
  CHECK(message.find("holds no autotune records") != std::string::npos);
  std::ofstream(fg / "records/manifest.json") << "{}\n";
  CHECK(failed_check(in, &message) == "python");
  CHECK(message.rfind("/no/such/python cannot be run: ", 0) == 0);
  CHECK(message.find("apt-get install python3-pytest") != std::string::npos);

  in.python = "/bin/false";
  CHECK(failed_check(in, &message) == "python");
  CHECK(message.rfind("/bin/false finds no module named pytest", 0) == 0);

  const PreflightError e("shape_file", "/x y", "sentence");
  CHECK(e.marker() == "PREFLIGHT_FAILED check=shape_file path=/x y");
}
