// zl ab: one op under two settings of one environment switch, in interleaved rounds, each side
// in its own `zl run` process with its own Triton and tuner caches.
#pragma once

#include "exec/invocation.hpp"
#include "run/request.hpp"

#include <string>
#include <vector>

namespace zl::ab {

struct AbSpec
{
  exec::ZlCommand zl;    // re-executed for every side of every round
  run::Request request;  // every side's run: flaggems_dir, op and the forwarded options
  std::string axis;      // the environment variable under test
  std::string values[2]; // side A's value, side B's value
  int rounds = 3;
  std::string out_dir; // A/round-N/ and B/round-N/ run folders, logs/
};

struct SideRun
{
  int round = 0;
  char side = 'A';
  std::string value;
  std::string run_dir;
  int exit_code = -1;
  double seconds = 0;
};

// The order of sides in round r (1-based): A B, then B A, alternating, so that neither side
// always runs on a machine warmed by the other.
std::vector<char> side_order(int round);

// Runs every round. Stops early (and returns what ran) when interrupted: SIGINT/SIGTERM reach
// the running child, which records its run as interrupted. interrupted is set then.
std::vector<SideRun> run_rounds(const AbSpec& spec, bool& interrupted);

} // namespace zl::ab
