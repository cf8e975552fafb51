// The one place that turns a run::Request into a child `zl run` command line. zl batch, zl sweep
// and zl ab all start their runs as this zl again, so that every op goes through the same run
// code; each says what it wants in a Request, never in hand-built argv.
#pragma once

#include "run/request.hpp"

#include <string>
#include <vector>

namespace zl::exec {

// How to start a child zl with the parent's backend choice.
struct ZlCommand
{
  std::string binary;                     // the running zl, re-executed
  std::string backend;                    // --backend NAME
  std::vector<std::string> backend_paths; // --backend-path DIR, each absolute
};

// The running zl (/proc/self/exe) with this backend and its search folders (made absolute).
ZlCommand this_zl(const std::string& backend, const std::vector<std::string>& backend_paths);

// `zl [--backend NAME] [--backend-path DIR]… run …` asking for exactly request: every value set
// is passed as an option (the level, mode and timer always), so the child reads no variable in
// its place; an empty python is left to the child (ZL_PYTHON, python3). Paths are made absolute;
// arguments after -- follow.
std::vector<std::string> run_argv(const ZlCommand& zl, const run::Request& request);

} // namespace zl::exec
