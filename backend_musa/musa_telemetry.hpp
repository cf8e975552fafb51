// Moore Threads telemetry (read_telemetry, ABI 1.2): mthreads-gmi's default table, the only form
// of which real outputs exist (tests/fixtures/smi/real/mthreads-gmi). It prints per GPU the
// temperature, the ECC mode and, from gmi 2.2, a performance state, and the driver version in its
// banner; no clocks, no power, no firmware version. Facts and their sources: README.md here.
#pragma once

#include "musa_devices.hpp"

#include <zl/sdk/telemetry.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_musa {

using Telemetry = sdk::Telemetry;

// `mthreads-gmi`, no options: the table of every GPU (no documented option narrows it to one).
inline const std::vector<std::string>& gmi_table_argv()
{
  static const std::vector<std::string> argv = {"mthreads-gmi"};
  return argv;
}

// Parses that table for the GPU whose ID is `index`. Columns are found by the header's labels
// (`Temp` and `ECC Mode` under their header rows, at the label's column), the driver version in
// the banner's "Driver Version:". Temp "52C" is read; "N/A" leaves a field unread; ECC Mode "N/A"
// is unread, "Off"/"Disabled" off, any mode named ("On-die, EDC") on. No header, no row for the
// GPU or a Temp of another form is an error quoting the line; a table cut before the GPU's second
// or third row leaves those fields unread.
sdk::TelemetryParse parse_gmi_table_telemetry(std::string_view text, uint32_t index);

// mthreads-gmi for the device; a missing or failing gmi leaves every field unread, and the reason
// says which command and why.
Telemetry read_telemetry(const zl_host_api* host, const Device& device);

} // namespace zl::backend_musa
