// Huawei Ascend telemetry (read_telemetry, ABI 1.2): the `npu-smi info` table (per chip the Power(W)
// and Temp(C) of its name row, the driver version in the banner), then `npu-smi info -t common -i
// <NPU ID>` for the AI Core clocks (and the temperature and power where the table had none).
// Facts and their sources: README.md in this folder.
#pragma once

#include "ascend_devices.hpp"

#include <zl/sdk/telemetry.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::backend_ascend {

using Telemetry = sdk::Telemetry;

// `npu-smi info -t common -i <npu>`: one block per chip of the card (Huawei documents no -c here).
std::vector<std::string> npu_smi_common_argv(uint32_t npu);

// The (NPU ID, Chip) a chip's identity names: "npu3-chip1" -> (3, 1) (chip_identity's form, which
// both DCMI and npu-smi enumeration give). nullopt for any other form.
std::optional<std::pair<uint32_t, uint32_t>> chip_of(std::string_view uuid);

// Parses the `npu-smi info` table for chip `chip` of NPU `npu`: the Power(W) and Temp(C) of the name
// row above its chip row, found by the header's labels; "NA" or "-" (the second die of an A3 NPU)
// leaves a field unread. The banner's "Version:" is the driver's. No header, no row for the chip
// or a value of another form is an error quoting the line; a last line without its end (a cut
// output) is not read.
sdk::TelemetryParse parse_npu_smi_info_telemetry(std::string_view text, uint32_t npu, uint32_t chip);

// Parses `npu-smi info -t common -i <npu>` for chip `chip`: "Aicore curFreq(MHZ)" (the clock now),
// "Aicore Freq(MHZ)" (the rated AI Core clock, taken as the maximum), "Temperature(C)" and "NPU
// Real-time Power(W)" of its "Chip ID" block (without Chip ID lines, of the one chip: Huawei's
// example); the MCU's block ("Chip Name : mcu") is skipped. Another NPU ID, no block for the chip
// or a line that is not "key : value" is an error quoting it.
sdk::TelemetryParse parse_npu_smi_common_telemetry(std::string_view text, uint32_t npu, uint32_t chip);

// A reading as npu-smi prints it, "70.5" or "34": a non-negative decimal; nullopt otherwise.
std::optional<double> npu_smi_value(std::string_view text);

// What npu-smi prints where a chip has no reading: "NA", "N/A", and "-" (the second die of an A3 NPU).
bool npu_smi_no_reading(std::string_view text);

// Both commands for the chip; what either could not give is named in the reason.
Telemetry read_telemetry(const zl_host_api* host, const Device& device);

} // namespace zl::backend_ascend
