// Parsers for mthreads-gmi's two machine-readable outputs (docs/vendor-facts.md §2.1).
#include "musa_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <limits>
#include <optional>

namespace zl::backend_musa {

namespace {

bool contains(std::string_view s, std::string_view part)
{
  return s.find(part) != std::string_view::npos;
}

// A block header: "GPU0", "GPU 0", "GPU0:", "GPU0   00000000:2a:00.0". Not "GPU UUID : …".
std::optional<uint32_t> block_header(std::string_view line)
{
  if (!sdk::starts_with(line, "GPU")) {
    return std::nullopt;
  }
  auto rest = line.substr(3);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) {
    rest.remove_prefix(1);
  }
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || (digits < rest.size() && rest[digits] != ' ' && rest[digits] != '\t' && rest[digits] != ':')) {
    return std::nullopt;
  }
  uint64_t n = 0;
  if (!sdk::parse_u64(rest.substr(0, digits), n) || n > std::numeric_limits<uint32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(n);
}

struct Block
{
  Device device;
  size_t line_number = 0;
  std::string header;
  bool has_memory = false;
};

std::string check_block(const Block& b)
{
  const char* missing = b.device.name.empty()   ? "Product Name"
                        : b.device.uuid.empty() ? "GPU UUID"
                        : !b.has_memory         ? "memory Total"
                                                : nullptr;
  if (missing == nullptr) {
    return {};
  }
  return "the block at " + sdk::quote_line(b.line_number, b.header) + " has no " + missing + " line";
}

} // namespace

bool parse_memory(std::string_view value, uint64_t& bytes)
{
  value = sdk::trim(value);
  size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') {
    ++digits;
  }
  uint64_t n = 0;
  if (digits == 0 || !sdk::parse_u64(value.substr(0, digits), n)) {
    return false;
  }
  const auto unit = sdk::trim(value.substr(digits));
  unsigned shift = 0;
  if (unit.empty() || unit == "MiB" || unit == "MB") {
    shift = 20; // gmi prints MiB; a bare number is read the same way
  } else if (unit == "GiB" || unit == "GB") {
    shift = 30;
  } else if (unit == "KiB" || unit == "KB") {
    shift = 10;
  } else if (unit == "B") {
    shift = 0;
  } else {
    return false;
  }
  if (n > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return false;
  }
  bytes = n << shift;
  return true;
}

ParseResult parse_gmi_csv(std::string_view text)
{
  ParseResult result = sdk::parse_query_gpu_csv(text, &parse_memory, "size");
  for (Device& d : result.devices) {
    d.visibility_id = std::to_string(d.index);
  }
  return result;
}

ParseResult parse_gmi_query(std::string_view text)
{
  ParseResult result;
  if (sdk::trim(text).empty()) {
    return result;
  }
  const auto all = sdk::lines(text);
  std::optional<Block> block;
  std::string section;
  std::optional<uint64_t> attached; // "Attached GPUs : 2" in the preamble, when printed
  std::string attached_at;
  auto finish = [&]() {
    if (!block) {
      return true;
    }
    result.error = check_block(*block);
    if (!result.error.empty()) {
      return false;
    }
    block->device.visibility_id = std::to_string(block->device.index);
    result.devices.push_back(std::move(block->device));
    block.reset();
    return true;
  };

  size_t number = 0;
  for (auto raw : all) {
    ++number;
    const auto line = sdk::trim(raw);
    if (line.empty()) {
      continue;
    }
    if (number == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + sdk::quote_line(number, raw);
      return result;
    }
    if (const auto n = block_header(line)) {
      if (!finish()) {
        return result;
      }
      block = Block{};
      block->device.index = *n;
      block->line_number = number;
      block->header = std::string(line);
      section.clear();
      continue;
    }
    const auto colon = line.find(':');
    if (!block) {
      // The preamble: timestamp, driver version, attached GPUs.
      uint64_t n = 0;
      if (colon != std::string_view::npos && sdk::trim(line.substr(0, colon)) == "Attached GPUs" &&
          sdk::parse_u64(line.substr(colon + 1), n)) {
        attached = n;
        attached_at = sdk::quote_line(number, raw);
      }
      continue;
    }
    if (colon == std::string_view::npos) {
      section = std::string(line); // "Memory Usage", "PCI", …
      continue;
    }
    const auto key = sdk::trim(line.substr(0, colon));
    const auto value = sdk::trim(line.substr(colon + 1));
    if (key == "Product Name") {
      block->device.name = std::string(value);
    } else if (key == "GPU UUID" || key == "UUID") {
      block->device.uuid = std::string(value);
    } else if (key == "Total" && !block->has_memory && contains(section, "Memory") && !contains(section, "BAR")) {
      if (!parse_memory(value, block->device.memory_bytes)) {
        result.error = sdk::quote_line(number, raw) + ": memory Total " + sdk::quote(value) + " is not a size";
        return result;
      }
      block->has_memory = true;
    }
  }
  if (!finish()) {
    return result;
  }
  if (attached) {
    if (*attached != result.devices.size()) {
      result.error = attached_at + " announces " + std::to_string(*attached) + " GPUs but the report has " +
                     std::to_string(result.devices.size()) + " GPU<n> blocks";
    }
    return result;
  }
  if (result.devices.empty()) {
    // Non-empty output without a single GPU block is not gmi's -q report.
    for (size_t i = 0; i < all.size(); ++i) {
      if (!sdk::trim(all[i]).empty()) {
        result.error = "no GPU<n> block; " + sdk::quote_line(i + 1, all[i]) + " is not gmi -q output";
        break;
      }
    }
  }
  return result;
}

} // namespace zl::backend_musa
