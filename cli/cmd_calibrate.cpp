// zl calibrate: the device's own peaks (a copy and a GEMM through its torch), measured once per
// device and driver and kept, so that rows can be read against what this card reaches.
#include "app.hpp"
#include "output.hpp"

#include "calibrate/calibrate.hpp"
#include "devices/select.hpp"
#include "run/request.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl [--backend NAME] calibrate [--device INDEX|UUID] [--python PATH] [--copy-mib N] [--gemm-n N] [--force] "
    "[--json]";

constexpr const char* k_notes = R"(Measures what the device reaches, through its own torch, in a Python process
pinned to it as zl run pins pytest (python/zl_plugins/zl_calibrate.py):
- copy: a device-to-device copy of --copy-mib MiB (default 1024 on an accelerator, 256 on the
  host), counted as read plus written, the best of 5 rounds of 10 copies;
- GEMM: torch.matmul of two --gemm-n square matrices (default 8192 on an accelerator, float16;
  1024 on the host, float32), 2 n^3 flops a call, the best of 5 rounds of 5 calls.
Each round is timed by perf_counter between two synchronize calls. The best round is the peak:
whatever else happens (a clock ramping up, another process) only slows a round down.

The result is kept per device UUID and driver (the driver as the backend's telemetry reads it)
in ZL_CALIBRATION_DIR, else $XDG_CACHE_HOME/zl/calibration, else ~/.cache/zl/calibration; a
later call prints the kept one unless --force. Nothing of the card's settings is changed.

Exit codes: 0 done; 2 bad option, torch missing, the device unusable; 130 stopped.)";

void print_text(const calibrate::Calibration& c)
{
  std::cout << fmt::format("{} device {} ({}), driver {}: {} {}\n", c.backend, c.uuid, c.name,
                           c.driver.empty() ? "unknown" : c.driver, c.stored ? "kept, measured" : "measured",
                           c.measured_at);
  std::cout << fmt::format("  copy: {:.1f} GB/s ({} MiB read and written a call)\n", c.copy_gbps, c.copy_bytes >> 20);
  std::cout << fmt::format("  GEMM: {:.3f} TFLOPS ({}, {} x {})\n", c.gemm_tflops, c.gemm_dtype, c.gemm_n, c.gemm_n);
  std::cout << fmt::format("  through torch {}; {}\n  kept in {}{}\n", c.torch, c.method, c.file,
                           c.stored ? " (--force measures again)" : "");
}

std::uint32_t size_option(const po::variables_map& vm, const char* name, std::uint32_t max)
{
  if (!vm.count(name)) {
    return 0;
  }
  const auto v = vm[name].as<long long>();
  if (v < 1 || v > static_cast<long long>(max)) {
    throw Error(fmt::format("--{} {}: give a whole number from 1 to {}", name, v, max));
  }
  return static_cast<std::uint32_t>(v);
}

} // namespace

int cmd_calibrate(Context& ctx, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("device", po::value<std::string>(), "device index or UUID (default: the first)")(
      "python", po::value<std::string>(), "interpreter with torch (else ZL_PYTHON, else python3)")(
      "copy-mib", po::value<long long>(), "MiB the copy moves a call")("gemm-n", po::value<long long>(),
                                                                       "the GEMM's matrix size")(
      "force", "measure again though one is kept")("json", "print the calibration as JSON");
  const auto vm = parse_options("calibrate", std::string(k_usage) + "\n\n" + k_notes, desc, args);
  if (!vm) {
    return k_exit_ok;
  }
  calibrate::Request r;
  r.copy_mib = size_option(*vm, "copy-mib", 1 << 16);
  r.gemm_n = size_option(*vm, "gemm-n", 1 << 16);
  r.force = vm->count("force") > 0;
  const auto python = run::option_or(
      vm->count("python") ? std::optional((*vm)["python"].as<std::string>()) : std::nullopt, "ZL_PYTHON");
  r.python = python.empty() ? "python3" : python;
  const auto selection = ctx.select_backend();
  const auto& module = *selection.module;
  const auto device =
      devices::choose_one(module, vm->count("device") ? (*vm)["device"].as<std::string>() : std::string());
  const auto c = calibrate::calibrate(module, device, r);
  if (vm->count("json")) {
    util::JsonWriter j;
    j.w().StartObject();
    calibrate::write_json(j, c);
    j.field("file", c.file), j.field("stored", c.stored);
    j.w().EndObject();
    std::cout << j.text();
  } else {
    print_text(c);
  }
  return k_exit_ok;
}

} // namespace zl::cli
