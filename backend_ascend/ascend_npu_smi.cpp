// Parsers for npu-smi's two outputs (docs/vendor-facts.md §4.1). npu-smi has no CSV or JSON mode
// and its columns move between versions (Phy-ID in 26.x, Chip Phy-ID in -m on Ascend 950), so both
// parsers find their columns by header name, never by position.
#include "ascend_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <utility>

namespace zl::backend_ascend {

namespace {

// npu-smi pads its rows: quote them trimmed.
std::string at_line(size_t number, std::string_view line)
{
  return sdk::quote_line(number, sdk::trim(line));
}

std::vector<std::string_view> words(std::string_view s)
{
  std::vector<std::string_view> out;
  for (auto part : sdk::split(s, " ")) {
    part = sdk::trim(part);
    if (!part.empty()) {
      out.push_back(part);
    }
  }
  return out;
}

// Whitespace tokens with "used / total" glued back into one token "used/total".
std::vector<std::string> values(std::string_view cell)
{
  std::vector<std::string> out;
  for (auto w : words(cell)) {
    if (!out.empty() && (w.front() == '/' || out.back().back() == '/')) {
      out.back() += std::string(w);
    } else {
      out.emplace_back(w);
    }
  }
  return out;
}

// The cells between the '|' of a table row.
std::vector<std::string_view> cells(std::string_view row)
{
  row = sdk::trim(row);
  row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') {
    row.remove_suffix(1);
  }
  return sdk::split(row, "|");
}

std::optional<uint32_t> number(std::string_view s)
{
  uint64_t n = 0;
  if (!sdk::parse_u64(s, n) || n > std::numeric_limits<uint32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(n);
}

// A column of the second header row: which cell, which token within it.
struct Column
{
  size_t cell = 0;
  size_t token = 0;
  bool found = false;
};

Column find(const std::vector<std::vector<std::string>>& header, std::string_view name)
{
  for (size_t c = 0; c < header.size(); ++c) {
    for (size_t t = 0; t < header[c].size(); ++t) {
      if (header[c][t] == name) {
        return {c, t, true};
      }
    }
  }
  return {};
}

// "3197/65536" -> 65536 MiB in bytes; nullopt when it is not "used/total".
std::optional<uint64_t> total_of(std::string_view usage)
{
  const auto slash = usage.find('/');
  uint64_t mb = 0;
  if (slash == std::string_view::npos || !sdk::parse_u64(usage.substr(slash + 1), mb) || mb > (uint64_t{1} << 40)) {
    return std::nullopt;
  }
  return mb << 20;
}

} // namespace

TableResult parse_npu_smi_info(std::string_view text)
{
  TableResult result;
  if (sdk::trim(text).empty()) {
    return result;
  }
  const auto all = sdk::lines(text);
  std::vector<std::vector<std::string>> name_header; // tokens per cell of "NPU Name | Health | …"
  std::vector<std::vector<std::string>> chip_header; // tokens per cell of "Chip | Bus-Id | …"
  Column hbm;
  Column ddr;
  bool in_card = false; // between a separator and the next: the first row names the card
  std::optional<TableChip> card;
  size_t card_line = 0;
  std::string card_text;
  size_t chips_in_card = 0;

  auto close_card = [&]() {
    if (in_card && card && chips_in_card == 0) {
      result.error = "NPU " + std::to_string(card->npu) + " at " + at_line(card_line, card_text) + " has no chip row";
      return false;
    }
    card.reset();
    in_card = false;
    return true;
  };

  for (size_t i = 0; i < all.size(); ++i) {
    const auto line = sdk::trim(all[i]);
    const size_t n = i + 1;
    if (line.empty()) {
      continue;
    }
    if (n == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + at_line(n, all[i]);
      return result;
    }
    if (line.front() == '+') { // +----+ / +====+ separators end a card
      if (!close_card()) {
        return result;
      }
      in_card = !chip_header.empty();
      continue;
    }
    if (line.front() != '|') {
      result.error = at_line(n, all[i]) + " is not part of an npu-smi table";
      return result;
    }
    const auto row = cells(line);
    std::vector<std::vector<std::string>> tokens;
    for (auto cell : row) {
      tokens.push_back(values(cell));
    }
    const auto& first = tokens.front();
    if (!first.empty() && first.front() == "NPU") {
      if (!chip_header.empty()) {
        break; // the process table ("NPU Chip | Process id | …") follows the devices
      }
      name_header = tokens;
      continue;
    }
    if (!first.empty() && first.front() == "Chip" && !name_header.empty() && chip_header.empty()) {
      chip_header = tokens;
      hbm = find(chip_header, "HBM-Usage(MB)");
      ddr = find(chip_header, "Memory-Usage(MB)");
      if (!hbm.found && !ddr.found) {
        result.error = at_line(n, all[i]) + " has neither HBM-Usage(MB) nor Memory-Usage(MB)";
        return result;
      }
      continue;
    }
    if (chip_header.empty()) {
      if (name_header.empty() && (first.empty() || first.front() != "npu-smi")) {
        result.error = at_line(n, all[i]) + " comes before the npu-smi header";
        return result;
      }
      continue; // the version banner
    }
    if (!in_card) {
      continue;
    }
    // A plain value and a flag: GCC 12 at -O2 sees a std::optional here as maybe-uninitialized.
    const auto parsed_id = first.empty() ? std::nullopt : number(first.front());
    const bool has_id = parsed_id.has_value();
    const uint32_t id = parsed_id.value_or(0);
    if (!card) { // the card's name row: "NPU Name | Health | …"
      if (tokens.size() != name_header.size() || !has_id || first.size() < 2) {
        result.error = at_line(n, all[i]) + " is not an 'NPU Name' row";
        return result;
      }
      card = TableChip{};
      card->npu = id;
      std::vector<std::string> rest(first.begin() + 1, first.end());
      for (const auto& w : rest) {
        card->name += (card->name.empty() ? "" : " ") + w;
      }
      card_line = n;
      card_text = std::string(line);
      chips_in_card = 0;
      continue;
    }
    // A chip row: "Chip [Phy-ID] | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB)".
    if (tokens.size() != chip_header.size() || !has_id) {
      result.error = at_line(n, all[i]) + " is not a 'Chip' row";
      return result;
    }
    TableChip chip = *card;
    chip.chip = id;
    chip.line = std::string(line);
    std::optional<uint64_t> bytes;
    for (const Column* col : {&hbm, &ddr}) {
      if (!col->found || bytes.value_or(0) != 0) {
        continue;
      }
      const auto& cell = tokens[col->cell];
      if (cell.size() != chip_header[col->cell].size() || !(bytes = total_of(cell[col->token]))) {
        result.error = at_line(n, all[i]) + ": no 'used / total' under " + chip_header[col->cell][col->token];
        return result;
      }
    }
    chip.memory_bytes = bytes.value_or(0);
    result.chips.push_back(std::move(chip));
    ++chips_in_card;
  }
  if (!close_card()) {
    return result;
  }
  if (chip_header.empty()) {
    result.error = "no 'NPU Name' / 'Chip' header rows; " + at_line(1, all.front()) + " is not npu-smi info output";
  }
  return result;
}

MapResult parse_npu_smi_map(std::string_view text)
{
  MapResult result;
  if (sdk::trim(text).empty()) {
    return result;
  }
  const auto all = sdk::lines(text);
  std::vector<std::string> header;
  size_t npu = 0, chip = 0, logic = 0, name = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto line = sdk::trim(all[i]);
    const size_t n = i + 1;
    if (line.empty()) {
      continue;
    }
    if (n == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + at_line(n, all[i]);
      return result;
    }
    // Columns are separated by runs of spaces; header names contain single spaces.
    std::vector<std::string> fields;
    for (auto part : sdk::split(line, "  ")) {
      if (!sdk::trim(part).empty()) {
        fields.emplace_back(sdk::trim(part));
      }
    }
    if (header.empty()) {
      auto at = [&](std::string_view h) {
        return static_cast<size_t>(std::find(fields.begin(), fields.end(), h) - fields.begin());
      };
      npu = at("NPU ID");
      chip = at("Chip ID");
      logic = at("Chip Logic ID");
      name = at("Chip Name");
      if (std::max({npu, chip, logic}) >= fields.size()) {
        result.error = at_line(n, all[i]) + " is not the 'NPU ID  Chip ID  Chip Logic ID' header";
        return result;
      }
      header = std::move(fields);
      continue;
    }
    if (fields.size() != header.size() && name == header.size() - 1) {
      // Single spaces between columns: split on every space, the name takes the rest.
      const auto w = words(line);
      fields.assign(w.begin(), w.begin() + static_cast<long>(std::min(w.size(), name)));
      std::string rest;
      for (size_t k = name; k < w.size(); ++k) {
        rest += (rest.empty() ? "" : " ") + std::string(w[k]);
      }
      fields.push_back(rest);
    }
    if (fields.size() != header.size()) {
      result.error = at_line(n, all[i]) + " has " + std::to_string(fields.size()) + " columns, the header " +
                     std::to_string(header.size());
      return result;
    }
    if (fields[logic] == "-") {
      continue; // an MCU: no logic ID, not a compute chip
    }
    const auto a = number(fields[npu]), b = number(fields[chip]), c = number(fields[logic]);
    if (!a || !b || !c) {
      result.error = at_line(n, all[i]) + ": NPU ID, Chip ID and Chip Logic ID must be numbers";
      return result;
    }
    result.rows.push_back({*a, *b, *c, name < fields.size() ? fields[name] : std::string()});
  }
  return result;
}

std::string chip_identity(uint32_t npu, uint32_t chip)
{
  return "npu" + std::to_string(npu) + "-chip" + std::to_string(chip);
}

ParseResult join_npu_smi(const TableResult& table, const MapResult& map)
{
  ParseResult result;
  std::map<std::pair<uint32_t, uint32_t>, const LogicRow*> by_chip;
  for (const auto& row : map.rows) {
    by_chip[{row.npu, row.chip}] = &row;
  }
  for (const auto& chip : table.chips) {
    const auto found = by_chip.find({chip.npu, chip.chip});
    if (found == by_chip.end()) {
      result.error = "npu-smi info -m has no logic ID for NPU " + std::to_string(chip.npu) + " chip " +
                     std::to_string(chip.chip) + " (table row " + sdk::quote(chip.line) + ")";
      return result;
    }
    Device d;
    d.index = found->second->logic;
    d.uuid = chip_identity(chip.npu, chip.chip);
    d.name = found->second->name.empty() ? chip.name : found->second->name;
    d.memory_bytes = chip.memory_bytes;
    d.visibility_id = std::to_string(found->second->logic);
    result.devices.push_back(std::move(d));
  }
  std::sort(result.devices.begin(), result.devices.end(),
            [](const Device& a, const Device& b) { return a.index < b.index; });
  return result;
}

} // namespace zl::backend_ascend
