// zl summary --rows: every row, with what its samples say.
#include "results/text/format.hpp"

#include "devices/peaks.hpp"
#include "results/compare/summary.hpp"
#include "util/json.hpp"

#include <fmt/format.h>

namespace zl::results::text {

namespace {

std::string ms(double v)
{
  return has_value(v) ? fmt::format("{:.6f}", v) : "";
}

// FlagGems' own formulas give 0 where a row has none (zl_metrics.py): no value.
bool achieved(double v)
{
  return has_value(v) && v > 0;
}

std::string rate(double v)
{
  return achieved(v) ? fmt::format("{:.3f}", v) : "";
}

void json_rate(util::JsonWriter& j, const char* key, double v)
{
  j.key(key), achieved(v) ? j.w().Double(v) : j.w().Null();
}

void json_side(util::JsonWriter& j, const char* key, const SampleSet* s)
{
  auto& w = j.w();
  j.key(key);
  if (s == nullptr) {
    w.Null();
    return;
  }
  w.StartObject();
  j.field("n", s->stats.n);
  j.field("median", s->stats.median), j.field("q1", s->stats.q1), j.field("q3", s->stats.q3);
  j.field("min", s->stats.min), j.field("max", s->stats.max);
  j.field("noise", s->stats.noise());
  j.field("ci_lo", s->stats.ci_lo), j.field("ci_hi", s->stats.ci_hi), j.field("ci_level", s->stats.ci_level);
  j.field("stop", std::string(to_string(s->stop))), j.field("calls", s->calls);
  j.field("timer", std::string(s->timer));
  j.field("warnings", warnings_text(s->stats.warnings));
  w.EndObject();
}

std::string json(const std::vector<Run>& runs)
{
  util::JsonWriter j;
  auto& w = j.w();
  w.StartObject();
  j.field("version", 1);
  j.key("rows");
  w.StartArray();
  for (const auto& run : runs) {
    const auto peak = devices::spec_peak(run.info.device_name);
    const auto calibration = calibrate::find(run.info.device_uuid, run.info.driver);
    const auto measured = calibration ? std::optional(compare::measured_peak(*calibration)) : std::nullopt;
    for (const auto& r : run.rows) {
      w.StartObject();
      j.field("run", run.info.path);
      j.field("op", std::string(r.op())), j.field("dtype", std::string(r.dtype()));
      j.field("shape", std::string(r.shape)), j.field("success", r.success);
      j.field("throttled", r.throttled);
      j.key("gems_ms"), has_value(r.gems_ms) ? w.Double(r.gems_ms) : w.Null();
      j.key("torch_ms"), has_value(r.torch_ms) ? w.Double(r.torch_ms) : w.Null();
      json_rate(j, "gems_gbps", r.gems_gbps), json_rate(j, "torch_gbps", r.torch_gbps);
      json_rate(j, "tflops", r.tflops);
      // Shares of the device's spec peak, in percent (devices/peaks.hpp); null where none.
      const auto share = compare::peak_share(r, peak);
      j.field("pct_bandwidth", share.pct_bandwidth), j.field("pct_tflops", share.pct_tflops);
      const auto of_measured = compare::peak_share(r, measured); // zl calibrate's, where kept
      j.field("pct_bandwidth_measured", of_measured.pct_bandwidth);
      j.field("pct_tflops_measured", of_measured.pct_tflops);
      j.field("over_peak", compare::over_peak(share) > 0); // of the spec only: see summary.cpp
      json_side(j, "gems_samples", run.samples_of(r, true));
      json_side(j, "torch_samples", run.samples_of(r, false));
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  return j.text();
}

} // namespace

std::string format_rows(const std::vector<Run>& runs, Format f)
{
  if (f == Format::json) {
    return json(runs);
  }
  const bool csv = f == Format::csv;
  Table t;
  t.header = csv ? std::vector<std::string>{"op",      "dtype",       "shape", "gems_ms", "n",        "median",
                                            "noise",   "ci_lo",       "ci_hi", "stop",    "warnings", "torch_ms",
                                            "torch_n", "torch_noise", "gbps",  "tflops"}
                 : std::vector<std::string>{"OP",       "DTYPE",   "SHAPE",       "GEMS MS", "N",
                                            "MEDIAN",   "NOISE",   "95% CI",      "STOP",    "WARNINGS",
                                            "TORCH MS", "TORCH N", "TORCH NOISE", "GB/S",    "TFLOPS"};
  t.right = {false, false, false, true, true, true, true, !csv, false, false, true, true, true, true, true};
  if (csv) {
    t.right.push_back(true);
  }
  for (const auto& run : runs) {
    for (const auto& r : run.rows) {
      const auto* g = run.samples_of(r, true);
      const auto* tr = run.samples_of(r, false);
      auto noise = [&](const SampleSet* s) {
        return s == nullptr ? std::string()
               : csv        ? fmt::format("{}", s->stats.noise())
                            : fmt::format("{:.2f}%", s->stats.noise() * 100);
      };
      std::vector<std::string> row{std::string(r.op()),
                                   std::string(r.dtype()),
                                   std::string(r.shape),
                                   ms(r.gems_ms),
                                   g ? std::to_string(g->stats.n) : "",
                                   g ? ms(g->stats.median) : "",
                                   noise(g)};
      if (csv) {
        row.push_back(g ? ms(g->stats.ci_lo) : ""), row.push_back(g ? ms(g->stats.ci_hi) : "");
      } else {
        row.push_back(g ? fmt::format("{:.6f}-{:.6f}", g->stats.ci_lo, g->stats.ci_hi) : "");
      }
      row.push_back(g ? to_string(g->stop) : "");
      row.push_back(g ? warnings_text(g->stats.warnings) : "");
      row.push_back(ms(r.torch_ms)), row.push_back(tr ? std::to_string(tr->stats.n) : ""), row.push_back(noise(tr));
      row.push_back(rate(r.gems_gbps)), row.push_back(rate(r.tflops));
      t.rows.push_back(std::move(row));
    }
  }
  return render(t, f);
}

} // namespace zl::results::text
