// samples.bin: every timed sample of a run's rows, as the timing plugins write it
// (python/zl_plugins/zl_samples.py; the format is in docs/plan-file.md).
#pragma once

#include "results/model.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::results::parse {

// One timing of one row: the names the benchmark's table prints, and its samples.
struct SampleRecord
{
  std::string op, table_op, dtype, shape, timer, no_samples;
  SampleStop stop = SampleStop::fixed;
  bool stamps_measured = false;
  std::uint32_t calls = 0;
  double returned = k_na; // what the timer returned for the row; NaN when not a number
  double t0 = 0;
  std::vector<float> ms, at_s;
  std::uint64_t offset = 0; // where the record starts in the file
};

// The records of text (a samples.bin's bytes), in order. A record cut short at the end (an
// interrupted run), or one whose CRC does not match, is reported in diagnostics (FILE:0, with its
// byte offset) and left out; the records before it are kept. Throws Error naming the file when
// the file does not start as a samples.bin.
std::vector<SampleRecord> parse_samples(std::string_view bytes, const std::string& file,
                                        std::vector<Diagnostic>& diagnostics);

// Gives run's rows their samples: a record goes to the first row of its op, dtype and Size
// Detail (in either spelling) whose torch or FlagGems latency is the value the timer returned
// for it (to the table's six decimals), in the order both were written.
void attach_samples(Run& run, std::vector<SampleRecord> records);

} // namespace zl::results::parse
