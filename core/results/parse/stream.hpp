// Reading many runs as a stream: each run's rows handed to one reader as they are read, run
// after run in order, while several threads read ahead. zl summary of a campaign or of one huge
// log holds what it folds the rows into, never the rows.
#pragma once

#include "results/parse/sources.hpp"

#include <vector>

namespace zl::results::parse {

// What a run said besides its rows: its files not read, its malformed lines, the record-log
// entries of other runs (RunInfo::warnings, diagnostics, foreign).
struct RunNotes
{
  std::vector<Diagnostic> warnings, diagnostics, foreign;
};

// Streams sources into sink (stream) on several threads (threads == 0: one per core, at most
// 8), run after run in the order of sources: sink is called by one thread at a time and sees
// each run's begin, rows, markers and end together, as though one thread had read them all in
// order. A run read ahead of its turn is held back (up to k_held rows, then its reader waits),
// so that memory stays that of a few runs. Returns each run's notes, in order; throws the Error
// of the first source that has one, as load_all.
std::vector<RunNotes> stream_all(const std::vector<Source>& sources, RunSink& sink, unsigned threads = 0);

// Rows one reader holds back while it waits for its run's turn.
inline constexpr std::size_t k_held = std::size_t{1} << 16;

} // namespace zl::results::parse
