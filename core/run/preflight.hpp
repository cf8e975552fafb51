// The checks before pytest starts: a wrong path must fail as a wrong path, not as pytest's
// "unrecognized arguments: --level core" several layers away.
#pragma once

#include "shapes/shape_resolver.hpp"
#include "util/error.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::run {

// A failed check: `PREFLIGHT_FAILED check=<check>` and a sentence; exit code 3.
class PreflightError : public Error
{
public:
  PreflightError(std::string check, std::string path, const std::string& sentence)
    : Error(sentence, k_exit_preflight), m_check(std::move(check)), m_path(std::move(path))
  {}
  const std::string& check() const { return m_check; }
  const std::string& path() const { return m_path; }
  // The marker line: PREFLIGHT_FAILED check=<name> path=<path>
  std::string marker() const;

private:
  std::string m_check;
  std::string m_path;
};

struct PreflightInput
{
  std::string flaggems_dir;
  std::string flaggems_dir_from; // "--flaggems", "FLAGGEMS_DIR", "the working folder", or ""
  std::string benchmark_file;    // relative to flaggems_dir
  std::string how_resolved;      // how the node was found, quoted when the file is missing
  std::string shape_file;        // empty when FlagGems' own is in force
  std::string replay_from;       // empty when not replaying
  std::string python;            // empty: not checked (zl sweep --resolve-only starts no Python)
  std::string node_problem = {}; // why the node cannot run (Node::problem), reported as benchmark_file
  std::string op = {};           // the op whose shapes a given shape file must hold; empty: not checked
};

// Runs the checks in order: flaggems_dir, benchmark_file, shape_file (see check_shape_file),
// replay_from, python.
// Throws PreflightError at the first that fails. Only the file half of a node is checked:
// a missing ::test_<fn> already gets a clear "not found" from pytest.
void preflight(const PreflightInput& in);

// The shape file resolves for the op the way FlagGems' set_shapes looks it up: a mapping with
// a key (the op name, else a class of the benchmark's chain) holding a shapes list. Otherwise
// FlagGems measures its DEFAULT_SHAPES while the run names the file as the shapes in force.
// Where the module constructs the op with no literal op_name the chain is unknown, and only
// the mapping is checked.
void check_shape_file(const std::string& flaggems_dir, const std::string& module, const std::string& op,
                      const std::string& shape_file);
// The same against the module's targets already found (shapes::find_targets), for found.shape_file.
void check_shape_file(const shapes::Resolution& found);

// FlagGems names its record log after every pytest argument; a name over 255 bytes stops the
// session (ENAMETOOLONG). Throws PreflightError check=record_log.
void check_record_log_name(const std::vector<std::string>& pytest_args);

// Whether python can import pytest; the error text when not.
std::optional<std::string> python_lacks_pytest(const std::string& python);

} // namespace zl::run
