// Parsers for amd-smi's and rocm-smi's JSON (docs/vendor-facts.md §3.1).
#include "rocm_devices.hpp"

#include <zl/backend_sdk.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace zl::backend_rocm {

namespace {

using Value = rapidjson::Value;

// The line of text that holds byte offset `at`, with its number, for a parse error.
std::string line_at(std::string_view text, size_t at)
{
  at = std::min(at, text.size());
  size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  if (begin >= text.size() || (at == text.size() && sdk::trim(text.substr(begin)).empty())) {
    // The error is at the very end (truncated input): quote the last line that has text.
    const auto all = sdk::lines(text);
    for (size_t i = all.size(); i > 0; --i) {
      if (!sdk::trim(all[i - 1]).empty()) {
        return sdk::quote_line(i, all[i - 1]);
      }
    }
    return "the end of the output";
  }
  const size_t number =
      static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(begin), '\n')) + 1;
  const size_t end = text.find('\n', begin);
  return sdk::quote_line(number,
                         text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
}

// How deep the tools' JSON may nest: amd-smi and rocm-smi go three or four levels deep. What is
// deeper is refused here, because what reads a value later (Accept in show(), below) recurses.
constexpr size_t k_max_depth = 64;

size_t depth_of(const Value& root)
{
  size_t deepest = 0;
  std::vector<std::pair<const Value*, size_t>> todo{{&root, 1}};
  while (!todo.empty()) {
    const auto [v, depth] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, depth);
    if (depth > k_max_depth) {
      break;
    }
    if (v->IsArray()) {
      for (const auto& e : v->GetArray()) {
        todo.emplace_back(&e, depth + 1);
      }
    } else if (v->IsObject()) {
      for (const auto& m : v->GetObject()) {
        todo.emplace_back(&m.value, depth + 1);
      }
    }
  }
  return deepest;
}

bool parse_json(std::string_view text, rapidjson::Document& doc, std::string& error)
{
  // Iterative (RAPIDJSON_PARSE_DEFAULT_FLAGS, backend_rocm/CMakeLists.txt): a document of 50,000
  // '[' overflowed the recursive parser's stack (fuzz_amd_smi).
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    error = "invalid JSON at " + line_at(text, doc.GetErrorOffset()) + " (" +
            rapidjson::GetParseError_En(doc.GetParseError()) + ")";
    return false;
  }
  if (depth_of(doc) > k_max_depth) {
    error =
        "JSON nested more than " + std::to_string(k_max_depth) + " levels deep, which no amd-smi or rocm-smi output is";
    return false;
  }
  return true;
}

// An entry, compact, for a reason that has no line to quote.
std::string show(const Value& v)
{
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  v.Accept(writer);
  return sdk::quote(std::string_view(buf.GetString(), buf.GetSize()));
}

const Value* member(const Value& obj, std::initializer_list<const char*> keys)
{
  if (!obj.IsObject()) {
    return nullptr;
  }
  for (const char* key : keys) {
    const auto it = obj.FindMember(key);
    if (it != obj.MemberEnd()) {
      return &it->value;
    }
  }
  return nullptr;
}

std::string text_of(const Value* v)
{
  if (v == nullptr || !v->IsString()) {
    return {};
  }
  return std::string(sdk::trim(std::string_view(v->GetString(), v->GetStringLength())));
}

// A non-negative integer given as a number or as a string of digits.
std::optional<uint64_t> integer_of(const Value* v)
{
  uint64_t n = 0;
  if (v != nullptr && v->IsUint64()) {
    return v->GetUint64();
  }
  if (v != nullptr && v->IsString() && sdk::parse_u64(std::string_view(v->GetString(), v->GetStringLength()), n)) {
    return n;
  }
  return std::nullopt;
}

bool known(std::string_view s)
{
  return !s.empty() && s != "N/A" && s != "n/a";
}

// amd-smi prints sizes as {"value": N, "unit": "MB"}; its MB are MiB (2^20).
std::optional<uint64_t> size_of(const Value* size)
{
  if (size == nullptr) {
    return std::nullopt;
  }
  if (size->IsString() && !known(text_of(size))) {
    return uint64_t{0};
  }
  const auto value = integer_of(size->IsObject() ? member(*size, {"value"}) : size);
  const std::string unit = size->IsObject() ? text_of(member(*size, {"unit"})) : "MB";
  if (!value) {
    return std::nullopt;
  }
  const unsigned shift = unit == "B"                     ? 0
                         : unit == "KB" || unit == "KiB" ? 10
                         : unit == "MB" || unit == "MiB" ? 20
                         : unit == "GB" || unit == "GiB" ? 30
                                                         : 64;
  if (shift == 64 || *value > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return std::nullopt;
  }
  return *value << shift;
}

// amd-smi prints an array of per-GPU objects; some versions wrap it as {"gpu_data": [...]}.
const Value* gpu_array(const rapidjson::Document& doc)
{
  if (doc.IsArray()) {
    return &doc;
  }
  const Value* wrapped = member(doc, {"gpu_data"});
  return wrapped != nullptr && wrapped->IsArray() ? wrapped : nullptr;
}

} // namespace

std::string rocr_uuid(std::string_view serial)
{
  serial = sdk::trim(serial);
  if (sdk::starts_with(serial, "0x") || sdk::starts_with(serial, "0X")) {
    serial.remove_prefix(2);
  }
  if (serial.empty() || serial.size() > 16) {
    return {};
  }
  std::string hex;
  for (char c : serial) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return {};
    }
    hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  // rocminfo prints the unique ID as 16 hex digits.
  return "GPU-" + std::string(16 - hex.size(), '0') + hex;
}

ParseResult parse_amd_smi(std::string_view list_json, std::string_view static_json)
{
  ParseResult result;
  if (sdk::trim(list_json).empty()) {
    return result; // nothing listed
  }
  rapidjson::Document list;
  rapidjson::Document stat;
  if (!parse_json(list_json, list, result.error)) {
    result.error = "amd-smi list: " + result.error;
    return result;
  }
  if (!parse_json(static_json, stat, result.error)) {
    result.error = "amd-smi static: " + result.error;
    return result;
  }
  const Value* gpus = gpu_array(list);
  const Value* statics = gpu_array(stat);
  if (gpus == nullptr || statics == nullptr) {
    result.error = std::string("amd-smi ") + (gpus == nullptr ? "list" : "static") +
                   " did not print an array of GPUs: " + show(gpus == nullptr ? list : stat);
    return result;
  }
  std::map<uint64_t, const Value*> by_gpu;
  for (const auto& entry : statics->GetArray()) {
    if (const auto gpu = integer_of(member(entry, {"gpu"}))) {
      by_gpu[*gpu] = &entry;
    }
  }
  for (const auto& entry : gpus->GetArray()) {
    const auto gpu = integer_of(member(entry, {"gpu"}));
    Device d;
    d.uuid = text_of(member(entry, {"uuid", "gpu_uuid"}));
    if (!gpu || *gpu > std::numeric_limits<uint32_t>::max() || d.uuid.empty()) {
      result.error = "amd-smi list entry without a gpu index or uuid: " + show(entry);
      return result;
    }
    d.index = static_cast<uint32_t>(*gpu);
    const auto found = by_gpu.find(*gpu);
    if (found == by_gpu.end()) {
      result.error = "amd-smi static has no entry for the listed " + show(entry);
      return result;
    }
    const Value& info = *found->second;
    const Value* asic = member(info, {"asic", "ASIC"});
    // The JSON key of the market name is unverified (docs/vendor-facts.md §3.1, §7): accept both
    // spellings.
    d.name = text_of(asic != nullptr ? member(*asic, {"market_name", "MARKET_NAME"}) : nullptr);
    const Value* vram = member(info, {"vram", "VRAM"});
    const auto bytes = size_of(vram != nullptr ? member(*vram, {"size", "SIZE"}) : nullptr);
    if (!known(d.name) || !bytes) {
      result.error = "amd-smi static entry for gpu " + std::to_string(*gpu) + " lacks " +
                     (!known(d.name) ? "asic.market_name" : "a vram.size {value, unit}") + ": " + show(info);
      return result;
    }
    d.memory_bytes = *bytes;
    const std::string rocr =
        rocr_uuid(text_of(asic != nullptr ? member(*asic, {"asic_serial", "ASIC_SERIAL"}) : nullptr));
    d.visibility_id = rocr.empty() ? std::to_string(d.index) : rocr;
    result.devices.push_back(std::move(d));
  }
  std::sort(result.devices.begin(), result.devices.end(),
            [](const Device& a, const Device& b) { return a.index < b.index; });
  return result;
}

ParseResult parse_rocm_smi(std::string_view json)
{
  ParseResult result;
  if (sdk::trim(json).empty()) {
    return result;
  }
  rapidjson::Document doc;
  if (!parse_json(json, doc, result.error)) {
    result.error = "rocm-smi: " + result.error;
    return result;
  }
  if (!doc.IsObject()) {
    result.error = "rocm-smi did not print an object of cards: " + show(doc);
    return result;
  }
  for (const auto& card : doc.GetObject()) {
    const std::string_view key(card.name.GetString(), card.name.GetStringLength());
    uint64_t n = 0;
    if (!sdk::starts_with(key, "card")) {
      continue; // "system" and other summaries
    }
    if (!sdk::parse_u64(key.substr(4), n) || n > std::numeric_limits<uint32_t>::max() || !card.value.IsObject()) {
      result.error = "rocm-smi entry " + sdk::quote(key) + " is not card<N>: {…}";
      return result;
    }
    Device d;
    d.index = static_cast<uint32_t>(n);
    // "Card series" up to ROCm 6.1, "Card Series" from 6.2 (telegraf's recorded outputs). Consumer
    // cards print N/A for the SKU and sometimes the series: the next name field answers, and a
    // card with none is still listed, never a failed enumeration.
    // A bare PCI id ("0x1002", ROCm 4.3's series) names no product either.
    const auto named = [](const std::string& s) {
      return known(s) && !(sdk::starts_with(s, "0x") && !rocr_uuid(s).empty());
    };
    for (const char* field : {"Card Series", "Card series", "Device Name", "Card SKU", "Card Model"}) {
      if (!named(d.name)) {
        d.name = text_of(member(card.value, {field}));
      }
    }
    if (!named(d.name)) {
      d.name = "AMD GPU (" + std::string(key) + ")";
    }
    // VRAM in bytes; Hygon's DTK build prints "vram Total Memory (MiB)" instead.
    const auto bytes = integer_of(member(card.value, {"VRAM Total Memory (B)"}));
    const auto mib = integer_of(member(card.value, {"vram Total Memory (MiB)"}));
    if (!bytes && !(mib && *mib <= (std::numeric_limits<uint64_t>::max() >> 20))) {
      result.error = "rocm-smi " + std::string(key) + " lacks \"VRAM Total Memory (B)\": " + show(card.value);
      return result;
    }
    d.memory_bytes = bytes ? *bytes : *mib << 20;
    const std::string unique = text_of(member(card.value, {"Unique ID"}));
    const std::string rocr = rocr_uuid(unique);
    // Without a unique ID (older consumer cards print N/A) the identity is positional.
    d.uuid = rocr.empty() ? std::string(key) : unique;
    d.visibility_id = rocr.empty() ? std::to_string(d.index) : rocr;
    result.devices.push_back(std::move(d));
  }
  std::sort(result.devices.begin(), result.devices.end(),
            [](const Device& a, const Device& b) { return a.index < b.index; });
  return result;
}

} // namespace zl::backend_rocm
