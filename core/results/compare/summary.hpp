// One campaign at a glance: per operator and dtype, how many rows, how fast FlagGems was
// against torch (the speedup column), how many failed, how many fell back to direct timing.
#pragma once

#include "calibrate/calibrate.hpp"
#include "devices/peaks.hpp"
#include "results/model.hpp"
#include "results/parse/sources.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zl::results::compare {

struct GroupSummary
{
  std::string op, dtype; // dtype empty: a failure that names no dtype (a failed test)
  long long rows = 0;
  long long measured = 0; // rows with a positive speedup
  double geomean_speedup = k_na;
  double min_speedup = k_na;
  double max_speedup = k_na;
  long long failed = 0;
  long long fallback = 0; // timed directly after capture was refused
  double log_sum = 0;     // for the geometric mean
  std::string status;     // its runs' status in ops_status.csv: the ones not ok, else ok; empty: none says
  // FlagGems' samples (samples.hpp): rows that kept them, that warn, whose sampling hit a cap;
  // the median over those rows of the noise (IQR over the median).
  long long sampled = 0, warned = 0, capped = 0;
  long long throttled = 0; // timed while telemetry said the device was slowed (Row::throttled)
  double noise = k_na;
  // The median over its rows of FlagGems' bandwidth and throughput as a percentage of the spec
  // peak of the device each ran on (devices/peaks.hpp); NaN where no row has both.
  double pct_bandwidth = k_na, pct_tflops = k_na;
  // The same against what zl calibrate measured on the device (calibrate/calibrate.hpp).
  double pct_bandwidth_measured = k_na, pct_tflops_measured = k_na;
  std::vector<double> noises;                      // while summarizing
  std::vector<double> bandwidth_pcts, tflops_pcts; // while summarizing
  std::vector<double> measured_bandwidth_pcts, measured_tflops_pcts;
};

// A share of a spec peak above this (in percent) is left out of the medians: see summary.cpp.
inline constexpr double k_max_share = 100;

// Rows with a share above k_max_share of their spec peak.
struct OverPeak
{
  std::size_t rows = 0;
  std::string first; // "sum torch.float16 [torch.Size([64, 512, 512]), 1]: 163%"
};

// A row's share of its device's spec peak, in percent: Gems GBPS over the peak bandwidth, TFLOPS
// over the peak of its dtype (float16, bfloat16: dense tensor; float32: FP32 non-tensor where the
// sheet gives one; other dtypes: none). NaN where the row, or the peak, has no figure.
struct PeakShare
{
  double pct_bandwidth = k_na, pct_tflops = k_na;
};
PeakShare peak_share(const Row& r, const std::optional<devices::Peak>& peak);
// The larger of a share's figures above k_max_share; 0 where neither is.
double over_peak(const PeakShare& spec);

// A device named by the runs summarized, and what zl knows of its peak.
struct DevicePeak
{
  std::string device_name;
  std::optional<devices::Peak> peak;
  long long rows = 0; // its rows with Gems GBPS or TFLOPS
};

// A device (UUID and driver) zl calibrate measured, whose rows have GBPS or TFLOPS.
struct MeasuredPeak
{
  calibrate::Calibration calibration;
  long long rows = 0;
};

// The measured peak as a devices::Peak: the copy's bandwidth, the GEMM's throughput for its dtype.
devices::Peak measured_peak(const calibrate::Calibration& c);

// A row whose samples warn (samples.hpp): FlagGems' side, or torch's. Its own copy: the runs
// of a streaming summary are gone when it is printed.
struct UnstableRow
{
  std::string op, dtype, shape;
  const char* side = "gems";
  SampleStats stats;
};

struct Summary
{
  std::vector<GroupSummary> groups; // by op, then dtype
  GroupSummary total;
  std::size_t runs = 0;
  std::map<std::string, long long> calibers;               // "backend=… level=… …" -> runs
  std::map<std::string, long long> markers;                // name -> count (all but ZL_RUN, ZL_TIMER)
  std::map<std::string, std::set<std::string>> marker_ops; // name -> ops they name
  std::vector<OpOutcome> ops;                              // of the campaigns read: each op's status
  std::vector<std::string> attempts;                       // earlier attempts, listed, not counted
  std::vector<UnstableRow> unstable;                       // rows whose samples warn
  std::size_t telemetry_runs = 0;                          // runs with a telemetry.jsonl
  std::string throttle_cause;                              // the first throttled row's reason
  std::size_t unplaced_rows = 0;                           // rows whose throttling is unknown (RunInfo::unplaced_rows)
  std::string unplaced_cause;
  std::vector<DevicePeak> devices;    // those whose rows have GBPS or TFLOPS
  std::vector<MeasuredPeak> measured; // of those, the ones zl calibrate measured
  OverPeak over_peak;                 // rows whose share is above 100%
};

// summarize, run by run as a stream hands them over (parse::stream_all): what it keeps is the
// groups' values, never the rows, and the runs need not outlive it. The runs' order and each
// run's rows' order are the summary's (sums are taken in that order).
class SummaryFold final : public parse::RunSink
{
public:
  explicit SummaryFold(std::vector<OpOutcome> ops = {}) : m_ops(std::move(ops)) {}
  void begin(const Run& run) override;
  void row(const Run& run, const Row& r) override;
  void marker(const Run& run, const Marker& m) override;
  void end(const Run& run) override;
  // The summary of the runs folded; the fold is spent.
  Summary finish();

  // What one run's rows are read against: its device's spec peak and what zl calibrate measured
  // on it, and where the summary counts them (found on the first row with a figure).
  struct Peaks
  {
    std::optional<devices::Peak> spec, measured;
    std::optional<calibrate::Calibration> calibration;
    DevicePeak* device = nullptr;
    MeasuredPeak* measured_at = nullptr;
  };

private:
  GroupSummary& group(std::string_view op, std::string_view dtype);

  std::vector<OpOutcome> m_ops;
  Summary m_summary;
  // Runs of one campaign repeat few (op, dtype) pairs: a sorted vector beats a map here.
  std::vector<GroupSummary> m_groups;
  // A group's status is that of the runs its rows come from: a campaign op's tables may name
  // other operators (test_pow prints pow_tensor_scalar, …).
  std::map<std::pair<std::string, std::string>, std::set<OpState>> m_statuses;
  // The run being folded.
  GroupSummary* m_current = nullptr; // its rows come table by table: looked up when it changes
  std::optional<OpState> m_recorded; // its identity's status; none: a status only a run has
  Peaks m_peaks;
  std::size_t m_rows = 0;
};

// ops: what the campaigns' ops_status.csv say (a run's own status: RunInfo::campaign_status). An
// op whose status is not ok did not finish (its rows, if any, are partial): each such op counts
// one failure in the group (op, no dtype).
Summary summarize(const std::vector<Run>& runs, const std::vector<OpOutcome>& ops = {});
// The same over some of the runs (zl report summarizes each caliber of a folder on its own).
Summary summarize(const std::vector<const Run*>& runs, const std::vector<OpOutcome>& ops = {});

// An op's status cell from the states its campaigns give it: those not ok by name, else ok.
std::string status_cell(const std::set<OpState>& states);

// "backend=cuda level=core timer=graph mode=kernel tuner_cache=shared", unknown fields left out.
std::string describe(const Caliber& c);

// A row's speedup: the speedup column, else torch / gems; NaN when neither is positive.
double speedup_of(const Row& r);

} // namespace zl::results::compare
