#include "calibrate/calibrate.hpp"

#include "util/error.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

using namespace zl::calibrate;

TEST_CASE("zl::calibrate::file_for: one file per device and driver, names safe for a file system")
{
  CHECK(file_for("/d", "GPU-5d0a-11", "550.54.15") == "/d/GPU-5d0a-11--550.54.15.json");
  CHECK(file_for("/d", "MIG-GPU-1/2/0", "") == "/d/MIG-GPU-1_2_0--unknown-driver.json");
  CHECK(file_for("/d", "../x y", "a/b") == "/d/.._x_y--a_b.json");
}

TEST_CASE("zl::calibrate::store_dir: ZL_CALIBRATION_DIR, else XDG_CACHE_HOME, else HOME")
{
  const char* saved[] = {std::getenv("ZL_CALIBRATION_DIR"), std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")};
  const std::string keep[] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : "", saved[2] ? saved[2] : ""};
  setenv("ZL_CALIBRATION_DIR", "/cal", 1);
  CHECK(store_dir() == "/cal");
  unsetenv("ZL_CALIBRATION_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(store_dir() == "/xdg/zl/calibration");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  CHECK(store_dir() == "/home/u/.cache/zl/calibration");
  unsetenv("HOME");
  CHECK_THROWS_WITH_AS(store_dir(), doctest::Contains("set ZL_CALIBRATION_DIR"), zl::Error);
  const char* names[] = {"ZL_CALIBRATION_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i] != nullptr) {
      setenv(names[i], keep[i].c_str(), 1);
    }
  }
}

TEST_CASE("zl::calibrate::read_json: what write_json wrote, and refusals naming the file")
{
  Calibration c;
  c.backend = "cuda", c.uuid = "GPU-1", c.name = "NVIDIA H100 80GB HBM3", c.driver = "550.54.15";
  c.measured_at = "2026-12-06T03:00:00Z", c.torch = "2.5.1", c.method = "best of 5";
  c.copy_bytes = 1U << 30, c.copy_gbps = 3012.5, c.gemm_n = 8192, c.gemm_dtype = "float16", c.gemm_tflops = 760.25;
  zl::util::JsonWriter j;
  j.w().StartObject();
  write_json(j, c);
  j.w().EndObject();
  const auto back = read_json(j.text(), "f.json");
  CHECK(back.uuid == "GPU-1");
  CHECK(back.driver == "550.54.15");
  CHECK(back.copy_bytes == (1U << 30));
  CHECK(back.copy_gbps == doctest::Approx(3012.5));
  CHECK(back.gemm_tflops == doctest::Approx(760.25));
  CHECK(back.file == "f.json");
  CHECK_THROWS_WITH_AS(read_json("{", "f.json"), "f.json: not JSON, not a calibration of zl's", zl::Error);
  CHECK_THROWS_WITH_AS(read_json(R"({"copy_bytes": 1, "copy_gbps": -2})", "f.json"),
                       "f.json: \"copy_gbps\" is not a positive number: not a calibration of zl's", zl::Error);
}
