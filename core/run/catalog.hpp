// Which benchmark files of a FlagGems tree mark which ops. Static reading is certain for a mark
// written out (`@pytest.mark.abs`) in a file of its own op (v5.3.0 on); a file that computes its
// marks (`marks=getattr(pytest.mark, name, None)` over a list) and every category file of
// v3.0 to v5.0.2 are read by pytest's own collection instead (`--collect-only` with the
// zl_collect plugin), cached per tree.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace zl::run {

struct Catalog
{
  std::map<std::string, std::vector<std::string>> files_of; // op mark -> files, relative to the tree
  std::vector<std::string> uncertain;                       // files whose marks only pytest's collection can tell
  bool collected = false;                                   // files_of holds the collection of `uncertain` too
  std::string collection;                                   // how it went: where it was cached, or why it failed
  std::vector<std::string> errors; // "file: error" of each file the collection could not import
};

// Every `pytest.mark.<name>` a text writes out, pytest's own marks left out.
std::vector<std::string> written_marks(const std::string& text);

// Static reading of every benchmark/**/test_*.py.
Catalog read_catalog(const std::string& flaggems_dir);

// Adds pytest's collection of the uncertain files, run with `python` in the tree, or read from
// the cache (ZL_CACHE_DIR, else $XDG_CACHE_HOME/zl, else ~/.cache/zl: collect/<sha256 of the
// tree's benchmark sources>.json). A failed collection is said in `collection`, not thrown:
// the static reading still stands.
void collect_uncertain(Catalog& catalog, const std::string& flaggems_dir, const std::string& python);

// The files that mark op, static or collected.
const std::vector<std::string>& files_marking(const Catalog& catalog, const std::string& op);

// Every op mark, sorted.
std::vector<std::string> marked_ops(const Catalog& catalog);

} // namespace zl::run
