// AMD filter_visible (issue 10.2): the inherited mask read as the vendor runtime reads it, with
// a fake host holding the environment.
#include "rocm_devices.hpp"

#include "visibility_helpers.hpp"

#include <cstring>
#include <tuple>

#include <doctest/doctest.h>

using zl::sdk::Device;
using zl::test::seen;
using zl::test::with_env;

TEST_CASE("zl::backend_rocm::filter_visible")
{
  using Want = std::vector<std::string>;
  const std::vector<Device> gpus = {{0, "u0", "MI300X", 0, "GPU-5c88007d760374f3"},
                                    {1, "u1", "MI300X", 0, "GPU-0a7e3c91b2d41234"},
                                    {2, "u2", "MI300X", 0, "2"}};
  const auto mask = [&](std::initializer_list<std::pair<std::string, std::string>> env) {
    return seen(with_env<zl::backend_rocm::filter_visible>(gpus, env), gpus);
  };
  SUBCASE("ROCR takes indices and GPU-<serial>; the pin is always the UUID")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "GPU-5C88007D760374F3"}}) == Want{"0=GPU-5c88007d760374f3"});
  }
  SUBCASE("HIP indices count the GPUs ROCR left; CUDA_VISIBLE_DEVICES stands in for HIP only when HIP is unset")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "1,0"}, {"HIP_VISIBLE_DEVICES", "1"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({{"CUDA_VISIBLE_DEVICES", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
    CHECK(mask({{"HIP_VISIBLE_DEVICES", "0"}, {"CUDA_VISIBLE_DEVICES", "1"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({{"GPU_DEVICE_ORDINAL", "1"}}) == Want{"1=GPU-0a7e3c91b2d41234"});
  }
  SUBCASE("a GPU without a ROCr UUID cannot be pinned inside a mask")
  {
    CHECK(mask({{"ROCR_VISIBLE_DEVICES", "2,0"}}) == Want{"0=GPU-5c88007d760374f3"});
    CHECK(mask({}) == Want{"0=GPU-5c88007d760374f3", "1=GPU-0a7e3c91b2d41234", "2=2"});
  }
}

TEST_CASE("zl::backend_rocm::rocr_serial_in_asic_info")
{
  // Constructed amdsmi_asic_info_t images of the known layouts, in the zeroed 8 KiB buffer.
  const auto image = [](size_t market_size, size_t vendor_name_size, size_t serial_offset, const char* serial) {
    std::vector<unsigned char> buf(8192, 0);
    std::memcpy(buf.data(), "AMD Instinct MI300X", 19);
    if (vendor_name_size > 0) {
      std::memcpy(buf.data() + market_size + 4, "Advanced Micro Devices Inc. [AMD/ATI]", 37);
    }
    buf[serial_offset - 4] = 0xc1; // rev_id
    std::memcpy(buf.data() + serial_offset, serial, std::strlen(serial));
    return buf;
  };
  using zl::backend_rocm::rocr_serial_in_asic_info;
  const char* serial = "0x5C88007D760374F3";
  for (const auto& [market, vendor, offset] :
       {std::tuple<size_t, size_t, size_t>{64, 0, 84}, {64, 64, 148}, {256, 64, 340}, {256, 256, 532}}) {
    const size_t asic_offset = offset; // CAPTURE's lambda cannot take a structured binding (C++17)
    CAPTURE(asic_offset);
    const auto buf = image(market, vendor, offset, serial);
    CHECK(rocr_serial_in_asic_info(buf.data(), buf.size()) == "GPU-5c88007d760374f3");
  }
  // No serial (N/A, empty) or two layouts that both fit: no pin, so AMD SMI's index is never used.
  const auto na = image(256, 64, 340, "N/A");
  CHECK(rocr_serial_in_asic_info(na.data(), na.size()).empty());
  auto two = image(64, 0, 84, serial);
  std::memcpy(two.data() + 340, "0x1111222233334444", 18);
  CHECK(rocr_serial_in_asic_info(two.data(), two.size()).empty());
}
