// Which FlagGems release a checkout is, as its own files say: version, benchmark layout, the
// options its benchmark conftest registers and what its --mode takes. zl checks what it is
// about to pass against them, so that an option the release lacks is a clear error rather than
// a pytest usage failure (docs/flaggems-releases.md has the facts per release).
#pragma once

#include "util/fields.hpp"

#include <string>
#include <vector>

namespace zl::run {

enum class Layout {
  per_op,   // v5.3.0 on: benchmark/test_<op>.py, benchmark/base.py
  category, // v3.0 to v5.0.2: test_<category>_perf.py files, benchmark/performance_utils.py
  unknown,  // neither helper module: taken as per_op
};

struct Release
{
  std::string version;        // flag_gems' __version__, "" when no file says it
  std::string version_source; // the file it was read from, relative to the checkout
  Layout layout = Layout::unknown;
  bool conftest_read = false;       // benchmark/conftest.py was there and registers options
  std::vector<std::string> options; // what it registers: --mode, --level, ...
  std::vector<std::string> modes;   // the BenchMode values; empty when --mode names the device
};

Release read_release(const std::string& flaggems_dir);

// The layout alone, from which helper module the benchmark folder has (no file is read).
Layout layout_of(const std::string& flaggems_dir);

// "FlagGems 4.2.0" or "a FlagGems checkout of unknown version", for messages.
std::string describe(const Release& r);
const char* layout_name(Layout layout);

// True when the release's --mode names the device (v3.0: category files, no BenchMode): zl then
// passes no --mode for kernel.
bool mode_names_device(const Release& r);

// Throws Error (exit 2) naming the option and the release when zl would pass what the release's
// conftest lacks: a --mode value, or one of FlagGems' options (of any release) that this release
// does not register, among zl's own FlagGems arguments or the extra arguments.
void check_release(const Release& r, const std::string& mode, const std::vector<std::string>& zl_args,
                   const std::vector<std::string>& extra_args);

enum class ReleaseField { version, version_source, layout, options, modes };
void to_json(util::JsonWriter& j, const Release& r, std::initializer_list<util::Pick<ReleaseField>> fields);

} // namespace zl::run
