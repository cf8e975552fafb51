#include "devices/peaks.hpp"

#include "loader/registry.hpp"
#include "util/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <memory>
#include <utility>

namespace zl::devices {

namespace {

bool alnum(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

char lower(char c)
{
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool has_alnum(std::string_view name)
{
  for (const char c : name) {
    if (alnum(c)) {
      return true;
    }
  }
  return false;
}

// Whether a and b are one name once case and everything but letters and digits are set aside:
// "Acme X1-SXM-80GB" and "acme x1 sxm 80gb" are one, "X1-SXM-80GB" another (a backend lists each
// spelling its tools print). Compared in place: no copy per entry.
bool same_name(std::string_view a, std::string_view b)
{
  std::size_t i = 0;
  std::size_t j = 0;
  for (;;) {
    while (i < a.size() && !alnum(a[i])) {
      ++i;
    }
    while (j < b.size() && !alnum(b[j])) {
      ++j;
    }
    if (i == a.size() || j == b.size()) {
      return i == a.size() && j == b.size();
    }
    if (lower(a[i]) != lower(b[j])) {
      return false;
    }
    ++i;
    ++j;
  }
}

// A partition instance ("… MIG 1g.10gb") is a slice: the device's peak is not its own.
bool names_mig(std::string_view name)
{
  std::string word;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : ' ';
    if (alnum(c)) {
      word += lower(c);
    } else if (word == "mig") {
      return true;
    } else {
      word.clear();
    }
  }
  return false;
}

std::string_view text(const char* s)
{
  return s != nullptr ? std::string_view(s) : std::string_view();
}

Peak peak_of(const zl_peak& e)
{
  Peak p;
  p.sku = text(e.sku);
  p.bandwidth_gbps = e.bandwidth_gbps;
  p.fp16_tflops = e.fp16_tflops;
  // 0 is the ABI's "the sheet gives none".
  if (e.fp32_tflops > 0) {
    p.fp32_tflops = e.fp32_tflops;
  }
  p.source = text(e.source);
  return p;
}

std::vector<std::string>& cli_paths()
{
  static std::vector<std::string> paths;
  return paths;
}

// Every loaded module's table. The registry is kept for the process: a Peak views the strings of
// its module, and the modules stay loaded while the registry lives (the loader never unloads one).
std::vector<PeakTable> discover()
{
  static std::unique_ptr<loader::Registry> registry;
  std::vector<PeakTable> tables;
  try {
    registry = std::make_unique<loader::Registry>(loader::Registry::discover(loader::search_dirs(cli_paths())));
  } catch (const std::exception& e) {
    // A search folder named that does not exist: zl summary still reads its runs, without peaks.
    util::out().say(fmt::format("zl: note: no spec peaks: {}\n", e.what()));
    return tables;
  }
  for (const auto& m : registry->modules()) {
    if (m.has_peaks()) {
      tables.push_back(m.peaks());
    }
  }
  return tables;
}

} // namespace

std::optional<Peak> spec_peak(std::string_view device_name, const std::vector<PeakTable>& tables)
{
  if (names_mig(device_name) || !has_alnum(device_name)) {
    return std::nullopt;
  }
  for (const auto& table : tables) {
    for (std::size_t i = 0; i < table.count && table.entries != nullptr; ++i) {
      const auto& e = table.entries[i];
      if (e.device_name != nullptr && same_name(e.device_name, device_name)) {
        return peak_of(e);
      }
    }
  }
  return std::nullopt;
}

std::vector<Peak> spec_peaks(const std::vector<PeakTable>& tables)
{
  std::vector<Peak> out;
  for (const auto& table : tables) {
    for (std::size_t i = 0; i < table.count && table.entries != nullptr; ++i) {
      auto p = peak_of(table.entries[i]);
      const bool seen = std::any_of(out.begin(), out.end(), [&](const Peak& q) { return q.sku == p.sku; });
      if (!seen) {
        out.push_back(p);
      }
    }
  }
  return out;
}

void search_backend_paths(std::vector<std::string> paths)
{
  cli_paths() = std::move(paths);
}

const std::vector<PeakTable>& backend_peak_tables()
{
  static const std::vector<PeakTable> tables = discover();
  return tables;
}

std::optional<Peak> spec_peak(std::string_view device_name)
{
  return spec_peak(device_name, backend_peak_tables());
}

std::vector<Peak> spec_peaks()
{
  return spec_peaks(backend_peak_tables());
}

} // namespace zl::devices
