// What zl summary says of the devices' spec peaks (devices/peaks.hpp): per group, the median share
// of the peak bandwidth and throughput; below the table, which SKU each device matched, from which
// sheet, and which devices zl knows no peak of.
#include "results/text/format.hpp"

#include "util/json.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace zl::results::text {

using namespace compare;

namespace {

bool any_share(const Summary& s)
{
  return std::any_of(s.groups.begin(), s.groups.end(),
                     [](const GroupSummary& g) { return has_value(g.pct_bandwidth) || has_value(g.pct_tflops); });
}

bool any_measured(const Summary& s)
{
  return std::any_of(s.groups.begin(), s.groups.end(), [](const GroupSummary& g) {
    return has_value(g.pct_bandwidth_measured) || has_value(g.pct_tflops_measured);
  });
}

std::string tflops_text(const devices::Peak& p)
{
  return p.fp32_tflops ? fmt::format("{:g} TFLOPS dense FP16/BF16 tensor, {:g} FP32", p.fp16_tflops, *p.fp32_tflops)
                       : fmt::format("{:g} TFLOPS dense FP16/BF16 tensor, no FP32 figure", p.fp16_tflops);
}

} // namespace

void append_peak_columns(Table& t, const Summary& s, Format f)
{
  const bool csv = f == Format::csv;
  auto cell = [&](double v) { return csv ? (has_value(v) ? fmt::format("{}", v) : "") : fixed(v, 1); };
  // Only where some group has a share: a column of dashes says nothing.
  for (const bool measured : {false, true}) {
    if (!(measured ? any_measured(s) : any_share(s))) {
      continue;
    }
    t.header.push_back(csv ? (measured ? "pct_bandwidth_measured" : "pct_bandwidth") : (measured ? "%BW(M)" : "%BW"));
    t.header.push_back(csv ? (measured ? "pct_tflops_measured" : "pct_tflops") : (measured ? "%TFLOPS(M)" : "%TFLOPS"));
    t.right.push_back(true), t.right.push_back(true);
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const auto& g = i < s.groups.size() ? s.groups[i] : s.total;
      t.rows[i].push_back(cell(measured ? g.pct_bandwidth_measured : g.pct_bandwidth));
      t.rows[i].push_back(cell(measured ? g.pct_tflops_measured : g.pct_tflops));
    }
  }
}

std::string peak_notes(const Summary& s, bool md)
{
  std::string out;
  for (const auto& d : s.devices) {
    if (d.peak) {
      const auto& p = *d.peak;
      out += fmt::format("{}peak: \"{}\" is the {} ({:g} GB/s, {}), from {}\n", md ? "\n" : "", d.device_name, p.sku,
                         p.bandwidth_gbps, tflops_text(p), p.source);
    } else {
      out += fmt::format("{}peak: no spec peak known for device \"{}\" (a MIG instance, a partition or a card "
                         "docs/peaks.md does not list): its {} rows with GBPS or TFLOPS have no %BW or %TFLOPS\n",
                         md ? "\n" : "", d.device_name, d.rows);
    }
  }
  for (const auto& m : s.measured) {
    const auto& c = m.calibration;
    out += fmt::format("{}measured: device {} (driver {}) reached {:.1f} GB/s copying and {:.3f} TFLOPS in a {} GEMM "
                       "(zl calibrate, {}, {}); %BW(M) and %TFLOPS(M) are of those\n",
                       md ? "\n" : "", c.uuid, c.driver.empty() ? "unknown" : c.driver, c.copy_gbps, c.gemm_tflops,
                       c.gemm_dtype, c.measured_at, c.file);
  }
  if (s.over_peak.rows > 0) {
    out +=
        fmt::format("{}over peak: {} row{} above 100% of the spec peak, left out of %BW and %TFLOPS (first: {}): the "
                    "benchmark's formula counts more than the device moved (FlagGems' reductions count their "
                    "input twice), or the data stayed in a cache\n",
                    md ? "\n" : "", s.over_peak.rows, s.over_peak.rows == 1 ? "" : "s", s.over_peak.first);
  }
  if (any_share(s)) {
    out += fmt::format("{}%BW is the median over the rows of Gems GBPS / the peak bandwidth; %TFLOPS of TFLOPS / "
                       "the peak of the row's dtype (float16, bfloat16: dense tensor; float32: FP32 non-tensor "
                       "where the sheet gives it; other dtypes: none).\n",
                       md ? "\n" : "");
  }
  return out;
}

void json_peak(util::JsonWriter& j, const GroupSummary& g)
{
  j.field("pct_bandwidth", g.pct_bandwidth); // null for NaN: none
  j.field("pct_tflops", g.pct_tflops);
  j.field("pct_bandwidth_measured", g.pct_bandwidth_measured);
  j.field("pct_tflops_measured", g.pct_tflops_measured);
}

void json_peaks(util::JsonWriter& j, const Summary& s)
{
  auto& w = j.w();
  j.field("over_peak_rows", static_cast<unsigned long long>(s.over_peak.rows));
  j.key("peaks");
  w.StartArray();
  for (const auto& d : s.devices) {
    w.StartObject();
    j.field("device_name", d.device_name);
    j.field("rows", d.rows);
    j.nullable("sku", d.peak ? std::string(d.peak->sku) : std::string());
    j.nullable("source", d.peak ? std::string(d.peak->source) : std::string());
    w.EndObject();
  }
  w.EndArray();
}

} // namespace zl::results::text
