// zl calibrate: the device's own peaks, measured once through its torch (a device-to-device copy
// and a GEMM, python/zl_plugins/zl_calibrate.py) and kept per device UUID and driver, so that a
// row's bandwidth and throughput can be read against what this card reaches, not only against
// its datasheet.
#pragma once

#include "loader/module.hpp"
#include "util/json.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace zl::calibrate {

struct Request
{
  std::string python = "python3";
  std::uint32_t copy_mib = 0; // 0: the default for the device (an accelerator's or the host's)
  std::uint32_t gemm_n = 0;
  bool force = false; // measure again though a stored calibration exists
};

struct Calibration
{
  std::string backend, uuid, name, driver; // the device as the backend lists it, and its driver
  std::string measured_at;                 // UTC, ISO 8601
  std::string torch, torch_device_name;    // torch's version, and its name for the device
  std::string method;                      // how it was timed
  std::uint64_t copy_bytes = 0;
  double copy_gbps = 0; // read plus written, per second
  std::uint32_t gemm_n = 0;
  std::string gemm_dtype;
  double gemm_tflops = 0;
  std::string file;    // where it is kept
  bool stored = false; // read from file, not measured now
};

// Where calibrations are kept: ZL_CALIBRATION_DIR, else $XDG_CACHE_HOME/zl/calibration, else
// ~/.cache/zl/calibration.
std::string store_dir();

// The file of one device and driver in dir: names made safe for a file system.
std::string file_for(const std::string& dir, const std::string& uuid, const std::string& driver);

// The stored calibration of device (its driver read through the backend's telemetry), unless
// request.force or there is none (or it cannot be read: said on stderr); else measures it and
// stores it. Throws Error naming what failed (torch missing, the device unusable) and the fix.
Calibration calibrate(const loader::Module& backend, const loader::Device& device, const Request& request);

// The calibration kept for a device and driver, if one is and can be read; never throws.
std::optional<Calibration> find(const std::string& uuid, const std::string& driver);

void write_json(util::JsonWriter& j, const Calibration& c);
// Throws Error naming file when text is not a calibration.
Calibration read_json(const std::string& text, const std::string& file);

} // namespace zl::calibrate
