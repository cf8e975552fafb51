#include "results_input.hpp"

#include "results/compare/ab.hpp"
#include "results/compare/summary.hpp"
#include "results/parse/stream.hpp"
#include "results/store/store.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <iostream>
#include <set>

namespace zl::cli {

double fraction(const po::variables_map& vm, const char* option, double low, double high)
{
  const double v = vm[option].as<double>();
  if (!(v >= low && v <= high)) {
    throw Error(fmt::format("--{} {} is out of range ({} to {})", option, v, low, high));
  }
  return v;
}

results::compare::AbOptions ab_options(const po::variables_map& vm)
{
  results::compare::AbOptions options;
  options.alpha = fraction(vm, "alpha", 1e-9, 0.5);
  options.threshold = fraction(vm, "threshold", 0, 1000) / 100;
  if (vm.count("fail-on-regression")) {
    options.fail_on_regression = fraction(vm, "fail-on-regression", 0, 1e6) / 100;
  }
  if (vm.count("process-noise")) {
    options.process_noise = fraction(vm, "process-noise", 0, 100) / 100;
  }
  options.keep_throttled = vm.count("keep-throttled") > 0 && vm["keep-throttled"].as<bool>();
  return options;
}

results::parse::Discovery find_runs(const std::string& command, const std::vector<std::string>& paths)
{
  auto found = results::parse::discover_all(paths);
  for (const auto& note : found.notes) {
    std::cerr << "zl " << command << ": " << note << "\n";
  }
  return found;
}

namespace {

// Each run's files not read, malformed lines and foreign record-log entries on stderr, then
// their counts. R: a Run or parse::RunNotes.
template <typename R>
void report_notes(const std::string& command, const std::vector<R>& runs)
{
  std::size_t bad = 0, foreign = 0;
  for (const auto& r : runs) {
    results::parse::print_diagnostics(std::cerr, r.warnings);
    results::parse::print_diagnostics(std::cerr, r.diagnostics);
    results::parse::print_diagnostics(std::cerr, r.foreign);
    bad += r.diagnostics.size();
    foreign += r.foreign.size();
  }
  if (bad > 0) {
    std::cerr << fmt::format("zl {}: {} malformed line{} skipped (listed above)\n", command, bad, bad == 1 ? "" : "s");
  }
  if (foreign > 0) {
    std::cerr << fmt::format("zl {}: {} record-log entr{} of other runs (foreign) found and not counted (listed "
                             "above): a worker or session wrote into a record log not its own\n",
                             command, foreign, foreign == 1 ? "y" : "ies");
  }
}

} // namespace

void stream_runs(const std::string& command, const results::parse::Discovery& found, results::parse::RunSink& sink)
{
  report_notes(command, results::parse::stream_all(found.sources, sink));
}

std::vector<results::Run> read_runs(const std::string& command, const results::parse::Discovery& found,
                                    results::store::Store* store)
{
  auto runs = results::parse::load_all(found.sources);
  report_notes(command, runs);
  if (store == nullptr) {
    return runs;
  }
  // Through the store, so that what is shown is what it holds (but for the campaign's status of
  // each run, which the store does not keep).
  std::vector<std::string> stored;
  for (const auto& r : runs) {
    store->ingest(r);
    stored.push_back(r.info.path);
  }
  auto loaded = store->load(stored);
  for (std::size_t i = 0; i < loaded.size() && i < runs.size(); ++i) {
    loaded[i].info.campaign_status = runs[i].info.campaign_status;
    loaded[i].foreign = runs[i].foreign;
  }
  return loaded;
}

std::string calibers(const std::vector<results::Run>& runs)
{
  std::set<std::string> all;
  for (const auto& r : runs) {
    all.insert(results::compare::describe(r.info.caliber));
  }
  return fmt::format("{}", fmt::join(all, " | "));
}

void refuse_caliber_difference(const std::vector<results::Run>& a, const std::vector<results::Run>& b, bool force)
{
  if (const auto diffs = results::compare::compare_caliber(a, b); !diffs.empty() && !force) {
    std::string what;
    bool unknown = false;
    for (const auto& d : diffs) {
      what += fmt::format("\n  {}: A={} B={}", d.field, d.a, d.b);
      unknown = unknown || d.a.find(results::compare::k_unknown) != std::string::npos ||
                d.b.find(results::compare::k_unknown) != std::string::npos;
    }
    throw Error(fmt::format("the two sides differ in caliber:{}\n{}numbers of different calibers do not compare; fix "
                            "the runs, or compare anyway with --force",
                            what,
                            unknown ? "unknown: the side does not say (a FlagGems log without zl's ZL_RUN header, a "
                                      "run without run_identity.json), so it was never checked\n"
                                    : ""));
  }
}

} // namespace zl::cli
