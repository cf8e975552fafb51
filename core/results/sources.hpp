// What zl summary and the store read: run folders, campaign folders of run folders, and bare
// FlagGems logs (the text output, or the record log).
#pragma once

#include "results/model.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace zl::results {

struct Source
{
  enum class Kind { run_folder, text_log, record_log };
  std::string path; // absolute
  Kind kind = Kind::run_folder;
};

// The absolute, normal form zl keeps a path in (no trailing slash): the key of a run in the store.
std::string normal_path(const std::string& path);

// A folder holding run_identity.json or run.log.
bool is_run_folder(const std::string& dir);

// The sources path stands for: itself when it is a run folder or a file; when it is a
// campaign, the run folders below it (any depth up to 6, hidden folders skipped, sorted by
// path). Rounds of the same ops are simply more run folders. Throws Error (exit 2) when path
// does not exist or holds no run folder.
std::vector<Source> discover(const std::string& path);

// Reads one source: run_identity.json, run.log, the record log. Bad lines are reported in
// run.diagnostics and skipped; an unreadable file throws Error. With an arena the rows and their
// strings are allocated there (load_all gives each thread one), else on the heap.
Run load(const Source& source, std::shared_ptr<Arena> arena = nullptr);

// Loads sources on several threads (threads == 0: one per core, at most 8); the runs come
// back in the order of sources.
std::vector<Run> load_all(const std::vector<Source>& sources, unsigned threads = 0);

// Prints diagnostics as FILE:LINE: reason, one a line.
void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diags);

} // namespace zl::results
