// What zl summary and zl report share: reading PATHs into runs (through the store with --db),
// and refusing two sides of an A/B whose calibers differ.
#pragma once

#include "output.hpp"
#include "results/compare/ab.hpp"
#include "results/model.hpp"
#include "results/parse/sources.hpp"

#include <string>
#include <vector>

namespace zl::results::store {
class Store;
}

namespace zl::cli {

// What the paths stand for, each run once; what was left out and why goes to stderr, after
// "zl <command>: ".
results::parse::Discovery find_runs(const std::string& command, const std::vector<std::string>& paths);

// The runs found, their malformed lines reported on stderr; with a store, ingested and read back.
std::vector<results::Run> read_runs(const std::string& command, const results::parse::Discovery& found,
                                    results::store::Store* store);

// The runs found, streamed into sink (parse::stream_all: one run at a time, the rows never all
// held), their malformed lines reported on stderr as read_runs reports them.
void stream_runs(const std::string& command, const results::parse::Discovery& found, results::parse::RunSink& sink);

// Throws Error naming the caliber fields on which the sides differ, unless force.
void refuse_caliber_difference(const std::vector<results::Run>& a, const std::vector<results::Run>& b, bool force);

// --alpha, --threshold (PCT) and, when declared and given, --fail-on-regression (PCT), checked
// against their ranges (Error otherwise).
results::compare::AbOptions ab_options(const po::variables_map& vm);

// describe() of each run's caliber, " | "-joined when they differ.
std::string calibers(const std::vector<results::Run>& runs);

} // namespace zl::cli
