// Where core says things. Two kinds of line: results, on standard output, for a script to read
// (paths, marker lines); words for the person, on standard error (notes, progress, summaries).
// Core writes through this one interface and never to a stream of its own, so that the CLI
// decides where lines go and a test can keep them.
#pragma once

#include <string_view>

namespace zl::util {

class Output
{
public:
  virtual ~Output() = default;
  // For a script: standard output. text is written as given (end a line with '\n').
  virtual void result(std::string_view text) = 0;
  // For the person: standard error. text is written as given.
  virtual void say(std::string_view text) = 0;
  // Whether say() reaches a terminal, where a status line may be redrawn in place.
  virtual bool terminal() const = 0;
};

// The Output installed, else the one on the process's standard streams.
Output& out();

// Installs output for the whole process (the CLI at start, a test around its body); nullptr puts
// back the standard streams. Not thread-safe: install before any thread says anything.
void install_output(Output* output);

} // namespace zl::util
