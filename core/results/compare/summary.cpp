#include "results/compare/summary.hpp"

#include "results/parse/marker_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace zl::results::compare {

namespace {

void add_samples(GroupSummary& g, const Run& run, const Row& r, std::vector<UnstableRow>& unstable)
{
  for (const bool gems : {true, false}) {
    const auto* s = run.samples_of(r, gems);
    if (s == nullptr) {
      continue;
    }
    if (s->stats.warnings != 0) {
      unstable.push_back(
          {std::string(r.op()), std::string(r.dtype()), std::string(r.shape), gems ? "gems" : "torch", s->stats});
    }
    if (gems) {
      ++g.sampled;
      g.warned += s->stats.warnings != 0 ? 1 : 0;
      g.capped += s->stop == SampleStop::max_samples || s->stop == SampleStop::max_time ? 1 : 0;
      g.noises.push_back(s->stats.noise());
    }
  }
}

bool positive(double v)
{
  return has_value(v) && v > 0 && std::isfinite(v);
}

using RunPeaks = SummaryFold::Peaks;

RunPeaks peaks_of(const RunInfo& info)
{
  RunPeaks p;
  p.spec = devices::spec_peak(info.device_name);
  p.calibration = calibrate::find(info.device_uuid, info.driver);
  if (p.calibration) {
    p.measured = measured_peak(*p.calibration);
  }
  return p;
}

// A share above 100% of the spec is no share of anything: the benchmark's formula counts more
// bytes or flops than moved (FlagGems' reductions count their input twice), or the data stayed in
// a cache. Such a row is counted and named (Summary::over_peak), never part of a median. A
// measured peak is one copy's and one GEMM's: an op may pass it, so its shares are kept.
void push_share(const PeakShare& share, std::vector<double>& bandwidth, std::vector<double>& tflops, double cap)
{
  if (has_value(share.pct_bandwidth) && share.pct_bandwidth <= cap) {
    bandwidth.push_back(share.pct_bandwidth);
  }
  if (has_value(share.pct_tflops) && share.pct_tflops <= cap) {
    tflops.push_back(share.pct_tflops);
  }
}

void note_over_peak(Summary& s, const Row& r, const PeakShare& spec)
{
  const double worst = over_peak(spec);
  if (worst > 0 && ++s.over_peak.rows == 1) {
    s.over_peak.first = fmt::format("{} {} {}: {:.0f}%", r.op(), r.dtype(), r.shape, worst);
  }
}

// The row's shares of its device's peaks into its group; the device counted among the summary's.
void add_peak(GroupSummary& g, const Row& r, RunPeaks& p, Summary& s, const std::string& device_name)
{
  // A bare log names no device: nothing to say of its peak.
  if (device_name.empty() || !r.success || (!positive(r.gems_gbps) && !positive(r.tflops))) {
    return;
  }
  if (p.device == nullptr) {
    const auto it = std::find_if(s.devices.begin(), s.devices.end(),
                                 [&](const DevicePeak& d) { return d.device_name == device_name; });
    p.device = it != s.devices.end() ? &*it : &s.devices.emplace_back(DevicePeak{device_name, p.spec});
  }
  ++p.device->rows;
  const auto spec = peak_share(r, p.spec);
  push_share(spec, g.bandwidth_pcts, g.tflops_pcts, k_max_share);
  note_over_peak(s, r, spec);
  if (!p.calibration) {
    return;
  }
  if (p.measured_at == nullptr) {
    const auto it = std::find_if(s.measured.begin(), s.measured.end(), [&](const MeasuredPeak& m) {
      return m.calibration.uuid == p.calibration->uuid && m.calibration.driver == p.calibration->driver;
    });
    p.measured_at = it != s.measured.end() ? &*it : &s.measured.emplace_back(MeasuredPeak{*p.calibration, 0});
  }
  ++p.measured_at->rows;
  push_share(peak_share(r, p.measured), g.measured_bandwidth_pcts, g.measured_tflops_pcts,
             std::numeric_limits<double>::infinity());
}

void add(GroupSummary& g, const Row& r)
{
  ++g.rows;
  g.failed += r.success ? 0 : 1;
  g.fallback += r.fallback ? 1 : 0;
  g.throttled += r.throttled ? 1 : 0;
  const double s = speedup_of(r);
  if (!r.success || !has_value(s)) {
    return;
  }
  ++g.measured;
  g.log_sum += std::log(s);
  g.min_speedup = has_value(g.min_speedup) ? std::min(g.min_speedup, s) : s;
  g.max_speedup = has_value(g.max_speedup) ? std::max(g.max_speedup, s) : s;
}

void merge(GroupSummary& into, const GroupSummary& g)
{
  into.rows += g.rows;
  into.measured += g.measured;
  into.failed += g.failed;
  into.fallback += g.fallback;
  into.log_sum += g.log_sum;
  into.sampled += g.sampled, into.warned += g.warned, into.capped += g.capped;
  into.throttled += g.throttled;
  into.noises.insert(into.noises.end(), g.noises.begin(), g.noises.end());
  into.bandwidth_pcts.insert(into.bandwidth_pcts.end(), g.bandwidth_pcts.begin(), g.bandwidth_pcts.end());
  into.tflops_pcts.insert(into.tflops_pcts.end(), g.tflops_pcts.begin(), g.tflops_pcts.end());
  into.measured_bandwidth_pcts.insert(into.measured_bandwidth_pcts.end(), g.measured_bandwidth_pcts.begin(),
                                      g.measured_bandwidth_pcts.end());
  into.measured_tflops_pcts.insert(into.measured_tflops_pcts.end(), g.measured_tflops_pcts.begin(),
                                   g.measured_tflops_pcts.end());
  if (has_value(g.min_speedup)) {
    into.min_speedup = has_value(into.min_speedup) ? std::min(into.min_speedup, g.min_speedup) : g.min_speedup;
    into.max_speedup = has_value(into.max_speedup) ? std::max(into.max_speedup, g.max_speedup) : g.max_speedup;
  }
}

void finish(GroupSummary& g)
{
  g.geomean_speedup = g.measured > 0 ? std::exp(g.log_sum / static_cast<double>(g.measured)) : k_na;
  g.noise = median_in_place(g.noises);
  g.noises = {};
  g.pct_bandwidth = median_in_place(g.bandwidth_pcts);
  g.pct_tflops = median_in_place(g.tflops_pcts);
  g.bandwidth_pcts = {}, g.tflops_pcts = {};
  g.pct_bandwidth_measured = median_in_place(g.measured_bandwidth_pcts);
  g.pct_tflops_measured = median_in_place(g.measured_tflops_pcts);
  g.measured_bandwidth_pcts = {}, g.measured_tflops_pcts = {};
}

// What a run adds beside its rows: its caliber, its telemetry.
void note_run(Summary& s, const Run& run)
{
  ++s.calibers[describe(run.info.caliber)];
  s.telemetry_runs += run.info.telemetry_file.empty() ? 0U : 1U;
  s.unplaced_rows += run.info.unplaced_rows;
  if (s.unplaced_cause.empty()) {
    s.unplaced_cause = run.info.unplaced_cause;
  }
  if (s.throttle_cause.empty()) {
    s.throttle_cause = run.info.throttle_cause;
  }
}

} // namespace

devices::Peak measured_peak(const calibrate::Calibration& c)
{
  devices::Peak p;
  p.sku = "measured by zl calibrate";
  p.bandwidth_gbps = c.copy_gbps;
  if (c.gemm_dtype == "float16" || c.gemm_dtype == "bfloat16") {
    p.fp16_tflops = c.gemm_tflops;
  } else if (c.gemm_dtype == "float32") {
    p.fp32_tflops = c.gemm_tflops;
  }
  return p;
}

double over_peak(const PeakShare& spec)
{
  const auto over = [](double v) { return has_value(v) && v > k_max_share ? v : 0.0; };
  return std::max(over(spec.pct_bandwidth), over(spec.pct_tflops));
}

PeakShare peak_share(const Row& r, const std::optional<devices::Peak>& peak)
{
  PeakShare out;
  if (!peak || !r.success) {
    return out;
  }
  if (positive(r.gems_gbps) && peak->bandwidth_gbps > 0) {
    out.pct_bandwidth = 100 * r.gems_gbps / peak->bandwidth_gbps;
  }
  auto dtype = r.dtype();
  if (dtype.substr(0, 6) == "torch.") {
    dtype.remove_prefix(6);
  }
  // float32 runs off the tensor units unless TF32 is allowed: its peak is FP32's, where known.
  const double flops = dtype == "float16" || dtype == "bfloat16" ? peak->fp16_tflops
                       : dtype == "float32"                      ? peak->fp32_tflops.value_or(k_na)
                                                                 : k_na;
  if (positive(r.tflops) && positive(flops)) {
    out.pct_tflops = 100 * r.tflops / flops;
  }
  return out;
}

double speedup_of(const Row& r)
{
  if (has_value(r.speedup) && r.speedup > 0 && std::isfinite(r.speedup)) {
    return r.speedup;
  }
  if (r.torch_ms > 0 && r.gems_ms > 0 && std::isfinite(r.torch_ms) && std::isfinite(r.gems_ms)) {
    return r.torch_ms / r.gems_ms;
  }
  return k_na;
}

std::string describe(const Caliber& c)
{
  std::string out;
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty()) {
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, value);
    }
  };
  put("backend", c.backend);
  put("level", c.level);
  put("timer", c.timer);
  put("mode", c.mode);
  put("tuner_cache", c.tuner_cache);
  return out.empty() ? "unknown" : out;
}

std::string status_cell(const std::set<OpState>& states)
{
  std::set<std::string_view> names; // sorted by name, as the cell always was
  for (const auto s : states) {
    if (s != OpState::ok) {
      names.insert(name(s));
    }
  }
  return names.empty() && !states.empty() ? std::string(name(OpState::ok)) : fmt::format("{}", fmt::join(names, ","));
}

GroupSummary& SummaryFold::group(std::string_view op, std::string_view dtype)
{
  auto it = std::lower_bound(m_groups.begin(), m_groups.end(), std::make_pair(op, dtype),
                             [](const GroupSummary& g, const std::pair<std::string_view, std::string_view>& k) {
                               return std::tie(g.op, g.dtype) < std::tie(k.first, k.second);
                             });
  if (it == m_groups.end() || it->op != op || it->dtype != dtype) {
    GroupSummary g;
    g.op = std::string(op);
    g.dtype = std::string(dtype);
    it = m_groups.insert(it, std::move(g));
  }
  return *it;
}

void SummaryFold::begin(const Run& run)
{
  m_current = nullptr;
  m_recorded = parse_op_state(run.info.status);
  m_peaks = peaks_of(run.info);
  m_rows = 0;
}

void SummaryFold::row(const Run& run, const Row& r)
{
  ++m_rows;
  if (r.source == RowSource::test_failure && m_recorded == OpState::unsupported) {
    return; // a refusal whose summary line pytest cut before the words that tell it
  }
  if (m_current == nullptr || m_current->op != r.op() || m_current->dtype != r.dtype()) {
    m_current = &group(r.op(), r.dtype());
    if (run.info.campaign_status) {
      m_statuses[{m_current->op, m_current->dtype}].insert(*run.info.campaign_status);
    }
  }
  add(*m_current, r);
  add_samples(*m_current, run, r, m_summary.unstable);
  add_peak(*m_current, r, m_peaks, m_summary, run.info.device_name);
}

void SummaryFold::marker(const Run&, const Marker& m)
{
  if (m.name != parse::marker_names::k_zl_run && m.name != parse::marker_names::k_zl_timer) {
    ++m_summary.markers[m.name];
    if (!m.op.empty()) {
      m_summary.marker_ops[m.name].insert(m.op);
    }
  }
}

void SummaryFold::end(const Run& run)
{
  ++m_summary.runs;
  note_run(m_summary, run);
  // A run outside a campaign that FlagGems declined has no row: its status still shows.
  if (!run.info.campaign_status && m_rows == 0 && !run.info.op.empty() && m_recorded && *m_recorded != OpState::ok &&
      settled(*m_recorded)) {
    group(run.info.op, "");
    m_statuses[{run.info.op, ""}].insert(*m_recorded);
  }
  m_current = nullptr;
}

Summary SummaryFold::finish()
{
  auto& s = m_summary;
  for (const auto& o : m_ops) {
    if (o.status != OpState::ok) {
      // An op that failed is counted as failed; one FlagGems declined (unsupported, skipped)
      // only shows its status.
      group(o.op, "").failed += settled(o.status) ? 0 : 1;
      m_statuses[{o.op, ""}].insert(o.status);
    }
  }
  for (auto& g : m_groups) {
    if (const auto it = m_statuses.find({g.op, g.dtype}); it != m_statuses.end()) {
      g.status = status_cell(it->second);
    }
    merge(s.total, g); // before finish, which lets go of the noises
    compare::finish(g);
  }
  compare::finish(s.total);
  s.total.op = "total";
  s.groups = std::move(m_groups);
  s.ops = std::move(m_ops);
  return std::move(s);
}

Summary summarize(const std::vector<Run>& runs, const std::vector<OpOutcome>& ops)
{
  std::vector<const Run*> all;
  all.reserve(runs.size());
  for (const auto& r : runs) {
    all.push_back(&r);
  }
  return summarize(all, ops);
}

Summary summarize(const std::vector<const Run*>& runs, const std::vector<OpOutcome>& ops)
{
  SummaryFold fold(ops);
  for (const auto* run : runs) {
    fold.begin(*run);
    for (const auto& r : run->rows) {
      fold.row(*run, r);
    }
    for (const auto& m : run->markers) {
      fold.marker(*run, m);
    }
    fold.end(*run);
  }
  return fold.finish();
}

} // namespace zl::results::compare
