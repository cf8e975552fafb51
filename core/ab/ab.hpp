// zl ab as a whole, below its command line: the axis check, the rounds (core/ab/rounds.cpp),
// ab.json, and each round's pair of run folders compared (results::compare::compare) into the tables.
#pragma once

#include "ab/rounds.hpp"

#include <iosfwd>
#include <optional>
#include <string>

namespace zl::ab {

struct AbRun
{
  AbSpec spec;                    // out_dir left empty here: see out_dir below
  std::optional<std::string> out; // --out; default ab/<UTC time>-<op>-<axis>/
  bool force = false;             // run even when nothing reads the axis
};

// Checks the axis is live (Error, exit 2, when not and not forced), takes the folder (the
// campaign folder's rules and its one owner), runs the rounds, writes ab.json and prints each
// complete round's table and the aggregate to out, progress to err. Returns 0, 1 (a side
// exited non-zero) or 130 (interrupted).
int run_ab(AbRun ab, std::ostream& out, std::ostream& err);

} // namespace zl::ab
