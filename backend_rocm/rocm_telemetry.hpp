// AMD telemetry (read_telemetry, ABI 1.2): `rocm-smi --json` for one GPU. amd-smi's `metric
// --json` is not read: the one real output of it (tests/fixtures/smi/real/amd-smi) is all N/A and
// cut, so the shape of its values is unseen. Facts and their sources: README.md in this folder.
#pragma once

#include "rocm_devices.hpp"

#include <zl/sdk/telemetry.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_rocm {

using Telemetry = sdk::Telemetry;

// `rocm-smi -d <index> --showclocks --showtemp --showpower --showmaxpower --showperflevel
// --showdriverversion --showvbios --showuniqueid --json`: one card<index> object and "system".
std::vector<std::string> rocm_smi_telemetry_argv(uint32_t index);

// Parses that JSON for card<index>: current sclk/mclk ("(1500Mhz)"), the edge temperature (else
// junction), the socket or average package power, the max package power (the cap), the
// performance level (anything but "auto" holds the clocks: locked at the current sclk), the VBIOS
// version and system."Driver version". A value rocm-smi prints as "N/A…" is left unread and named
// in the reason; a value of another form, invalid JSON or no card<index> is an error quoting it.
// rocr_id: the GPU's "GPU-<16hex>" when known; a card whose Unique ID differs is an error (the
// GPU was enumerated by AMD SMI or amd-smi, whose index rocm-smi's -d may not share).
sdk::TelemetryParse parse_rocm_smi_telemetry(std::string_view json, uint32_t index, std::string_view rocr_id = {});

// rocm-smi for the device; a missing or failing rocm-smi leaves every field unread, and the
// reason says which command and why.
Telemetry read_telemetry(const zl_host_api* host, const Device& device);

} // namespace zl::backend_rocm
