// The pytest arguments a user adds after `--`: they must never change what zl sets and records
// (the node, level, mode, dtypes, shapes, plugins, the record log), or a run's identity would
// name one caliber while FlagGems measured another.
#pragma once

#include <string>
#include <vector>

namespace zl::run {

// Throws Error (exit 2) at the first argument that would override what zl owns, naming the
// argument and the zl option to use instead. Reads pytest's spellings: --name value,
// --name=value, -x value, -xvalue, -x=value and bundled short flags (-sxk EXPR). A bare word
// that is no known option's value is refused too: pytest would take it as another test path.
void check_extra_args(const std::vector<std::string>& args);

} // namespace zl::run
