// zl_changepoint_bench: how well results/history/changepoint finds steps and drift, on seeded
// synthetic series, and what it costs per series. Figures go in notes (docs/statistics.md), never
// in a test. Run (a few minutes on 2 cores):
//
//   /tmp/zl-dev/build zl_changepoint_bench && build/bin/zl_changepoint_bench
//
// Every series is a latency of 1 ms times exp(0.01 N(0,1)) a campaign (multiplicative noise, sd
// 1%). A step series gets a 3% step, up or down at random, either at a uniform index with at
// least 10 points on each side (found: a confirmed change of that direction within 5 points of
// it) or 5 or 3 points before the series ends (the nightly view: is it confirmed yet?). Spikes are
// +20% for one campaign, at 1 campaign in 50: "single" never on the campaign after a spike,
// "independent" drawn for each campaign alone, so that runs happen (a run of min_segment spikes
// is a level that held that long, and is called). A false alarm is a series without step or
// drift that gets a confirmed change or a drift. Drift series rise 0.3% a campaign over their
// last 30 campaigns.
#include "results/history/changepoint.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t lengths[] = {30, 100, 365};

using zl::results::history::ChangepointOptions;
using zl::results::history::find_changes;
using zl::results::history::Point;
using zl::results::history::SeriesChanges;

struct Settings
{
  std::size_t series = 10000;       // per step and drift case
  std::size_t null_series = 100000; // per false-alarm case: a rate near 1 in 1,000 needs that many
  std::uint64_t seed = 1;
  ChangepointOptions options;
};

struct Shape
{
  std::size_t length = 100;
  std::size_t step_at = 0;    // 0: no step
  double step = 0;            // relative
  std::size_t drift_from = 0; // drift from this index on, when drift != 0
  double drift = 0;           // relative per campaign
  double outlier_rate = 0;
  bool single_spikes = true;
};

// Spikes: each campaign with probability outlier_rate, the one after a spike excepted when
// single_spikes (a spike lasts one campaign; several in a row are a level that held that long).
// run: the longest run of consecutive spikes, when asked.
std::vector<Point> make_series(const Shape& s, std::mt19937_64& rng, std::size_t* run = nullptr)
{
  std::size_t current = 0;
  std::normal_distribution<double> noise(0, 0.01);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<Point> out(s.length);
  bool spiked = false;
  for (std::size_t i = 0; i < s.length; ++i) {
    double level = 0;
    if (s.step_at && i >= s.step_at) {
      level += std::log1p(s.step);
    }
    if (s.drift != 0 && i >= s.drift_from) {
      level += std::log1p(s.drift) * static_cast<double>(i - s.drift_from + 1);
    }
    double v = std::exp(level + noise(rng));
    spiked = !(spiked && s.single_spikes) && s.outlier_rate > 0 && unit(rng) < s.outlier_rate;
    if (spiked) {
      v *= 1.2;
    }
    current = spiked ? current + 1 : 0;
    if (run) {
      *run = std::max(i == 0 ? 0 : *run, current);
    }
    out[i].value = v;
    out[i].campaign = i;
  }
  return out;
}

std::size_t confirmed(const SeriesChanges& r)
{
  std::size_t c = 0;
  for (const auto& cp : r.changes) {
    c += cp.confirmed ? 1 : 0;
  }
  return c;
}

// A step is found when a confirmed change point of the right direction lies within 5 points of it.
bool step_found(const SeriesChanges& r, const Shape& s)
{
  for (const auto& cp : r.changes) {
    const std::size_t d = cp.index > s.step_at ? cp.index - s.step_at : s.step_at - cp.index;
    if (cp.confirmed && d <= 5 && (cp.relative > 0) == (s.step > 0)) {
      return true;
    }
  }
  return false;
}

enum class Spikes { none, single, independent };

const char* spikes_name(Spikes k)
{
  switch (k) {
  case Spikes::none:
    return "no spikes";
  case Spikes::single:
    return "1/50 single-campaign spikes of +20%";
  case Spikes::independent:
    return "1/50 independent spikes of +20% (runs possible)";
  }
  return "";
}

void add_spikes(Shape& s, Spikes k)
{
  s.outlier_rate = k == Spikes::none ? 0 : 0.02;
  s.single_spikes = k == Spikes::single;
}

double per_thousand(std::size_t count, std::size_t of)
{
  return 1000.0 * static_cast<double>(count) / static_cast<double>(of);
}

// after: points of the new level the series ends with; 0: the step at a uniform index with at
// least 10 points either side.
void steps(const Settings& st, std::size_t length, std::size_t after, Spikes spikes)
{
  std::mt19937_64 rng(st.seed * 1000003 + length * 31 + after * 7 + static_cast<std::size_t>(spikes));
  std::uniform_int_distribution<std::size_t> where(10, length - 10);
  std::size_t found = 0, extra = 0, drifts = 0;
  for (std::size_t k = 0; k < st.series; ++k) {
    Shape s;
    s.length = length;
    s.step_at = after ? length - after : where(rng);
    s.step = rng() % 2 ? 0.03 : -0.03;
    add_spikes(s, spikes);
    const SeriesChanges r = find_changes(make_series(s, rng), st.options);
    const bool hit = step_found(r, s);
    found += hit ? 1u : 0u;
    extra += confirmed(r) - (hit ? 1u : 0u);
    drifts += r.drift ? 1u : 0u;
  }
  const std::string where_text = after ? "the last " + std::to_string(after) + " points" : "a uniform index";
  std::printf("3%% step at %s, n=%zu, %s: found %.1f%% of %zu; other confirmed changes %.1f, drifts %.1f per 1000\n",
              where_text.c_str(), length, spikes_name(spikes),
              100.0 * static_cast<double>(found) / static_cast<double>(st.series), st.series,
              per_thousand(extra, st.series), per_thousand(drifts, st.series));
}

void false_alarms(const Settings& st, std::size_t length, Spikes spikes)
{
  std::mt19937_64 rng(st.seed * 7919 + length * 3 + static_cast<std::size_t>(spikes));
  std::size_t changes = 0, drifts = 0, alarmed = 0, tentative = 0, with_level = 0, alarmed_level = 0;
  for (std::size_t k = 0; k < st.null_series; ++k) {
    Shape s;
    s.length = length;
    add_spikes(s, spikes);
    std::size_t run = 0;
    const SeriesChanges r = find_changes(make_series(s, rng, &run), st.options);
    const std::size_t c = confirmed(r);
    const bool alarm = c > 0 || r.drift;
    changes += c;
    drifts += r.drift ? 1u : 0u;
    alarmed += alarm ? 1u : 0u;
    tentative += r.changes.size() - c;
    // A run of min_segment spikes is a level that held min_segment campaigns: calling it is right.
    with_level += run >= st.options.min_segment ? 1u : 0u;
    alarmed_level += alarm && run >= st.options.min_segment ? 1u : 0u;
  }
  std::printf("no step, n=%zu, %s: false alarms in %zu of %zu series = %.2f per 1000 (confirmed changes %.2f, "
              "drifts %.2f; tentative tails %.1f per 1000)\n",
              length, spikes_name(spikes), alarmed, st.null_series, per_thousand(alarmed, st.null_series),
              per_thousand(changes, st.null_series), per_thousand(drifts, st.null_series),
              per_thousand(tentative, st.null_series));
  if (with_level > 0) {
    std::printf("  of which %zu in the %zu series with a run of %zu or more spikes; the others: %.2f per 1000\n",
                alarmed_level, with_level, st.options.min_segment,
                per_thousand(alarmed - alarmed_level, st.null_series - with_level));
  }
}

void drift(const Settings& st, std::size_t length, std::size_t drift_points, Spikes spikes)
{
  std::mt19937_64 rng(st.seed * 104729 + length + drift_points + static_cast<std::size_t>(spikes));
  std::size_t found = 0;
  double slope_sum = 0;
  for (std::size_t k = 0; k < st.series; ++k) {
    Shape s;
    s.length = length;
    s.drift = 0.003;
    s.drift_from = length - drift_points;
    add_spikes(s, spikes);
    const SeriesChanges r = find_changes(make_series(s, rng), st.options);
    if (r.drift && r.drift->slope > 0) {
      ++found;
      slope_sum += r.drift->slope;
    }
  }
  std::printf("drift +0.3%%/campaign over the last %zu of %zu, %s: reported %.1f%% of %zu, mean slope %.3f%%\n",
              drift_points, length, spikes_name(spikes),
              100.0 * static_cast<double>(found) / static_cast<double>(st.series), st.series,
              found ? 100 * slope_sum / static_cast<double>(found) : 0.0);
}

// The cost of find_changes alone, on series made beforehand (single spikes): the fastest of three
// rounds, since the build machine is shared.
void timing(const Settings& st, std::size_t length)
{
  std::mt19937_64 rng(st.seed);
  std::vector<std::vector<Point>> all;
  for (std::size_t k = 0; k < 2000; ++k) {
    Shape s;
    s.length = length;
    add_spikes(s, Spikes::single);
    all.push_back(make_series(s, rng));
  }
  double fastest = 0;
  std::size_t sink = 0;
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& series : all) {
      sink += find_changes(series, st.options).changes.size();
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    fastest = round == 0 ? us : std::min(fastest, us);
  }
  std::printf("cost, n=%zu: %.1f us a series (fastest of 3 rounds over %zu series; %zu change points)\n", length,
              fastest / static_cast<double>(all.size()), all.size(), sink);
}

void usage()
{
  std::printf("usage: zl_changepoint_bench [--series N (10000)] [--null-series N (100000)] [--seed S (1)]\n"
              "                            [--alpha A] [--filter-threshold T] [--drift-alpha A]\n"
              "                            [--min-segment M (sets the filter's half-width to M-1)]\n"
              "Prints how often zl::results::history::find_changes finds 3%% steps and 0.3%%/campaign\n"
              "drifts in seeded synthetic series with 1%% noise, its false alarms in series without\n"
              "either (N null series a case), and its cost per series. A, T: the options' defaults\n"
              "when not given.\n");
}

// The exit status when the program should stop here (--help, a bad argument).
std::optional<int> parse(int argc, char** argv, Settings& st)
{
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--series" && has_value) {
      st.series = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--null-series" && has_value) {
      st.null_series = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--seed" && has_value) {
      st.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--alpha" && has_value) {
      st.options.alpha = std::strtod(argv[++i], nullptr);
    } else if (a == "--filter-threshold" && has_value) {
      st.options.filter_threshold = std::strtod(argv[++i], nullptr);
    } else if (a == "--min-segment" && has_value) {
      st.options.min_segment = std::strtoull(argv[++i], nullptr, 10);
      st.options.filter_half_width = st.options.min_segment > 0 ? st.options.min_segment - 1 : 0;
    } else if (a == "--drift-alpha" && has_value) {
      st.options.drift_alpha = std::strtod(argv[++i], nullptr);
    } else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (st.series == 0 || st.null_series == 0) {
    usage();
    return 2;
  }
  return std::nullopt;
}

} // namespace

int main(int argc, char** argv)
{
  Settings st;
  if (const auto status = parse(argc, argv, st)) {
    return *status;
  }
  std::printf("options: alpha %g, min_segment %zu, filter half-width %zu threshold %.2f, drift window %zu alpha "
              "%g; seed %llu\n",
              st.options.alpha, st.options.min_segment, st.options.filter_half_width, st.options.filter_threshold,
              st.options.drift_window, st.options.drift_alpha, static_cast<unsigned long long>(st.seed));
  for (std::size_t n : lengths) {
    steps(st, n, 0, Spikes::none);
    steps(st, n, 0, Spikes::single);
    steps(st, n, 5, Spikes::none);
    steps(st, n, 3, Spikes::none);
  }
  for (std::size_t n : lengths) {
    false_alarms(st, n, Spikes::none);
    false_alarms(st, n, Spikes::single);
    false_alarms(st, n, Spikes::independent);
  }
  drift(st, 30, 30, Spikes::none);
  drift(st, 30, 30, Spikes::single);
  drift(st, 100, 30, Spikes::none);
  drift(st, 365, 30, Spikes::single);
  for (std::size_t n : lengths) {
    timing(st, n);
  }
  return 0;
}
