#include "util/output.hpp"

#include <cstdio>
#include <unistd.h>

namespace zl::util {

namespace {

// Unbuffered writes of whole texts through stdio's locked streams: lines from several threads
// (a campaign's ops) never interleave within a line.
class StandardStreams : public Output
{
public:
  void result(std::string_view text) override { write(stdout, text); }
  void say(std::string_view text) override { write(stderr, text); }
  bool terminal() const override { return ::isatty(STDERR_FILENO) != 0; }

private:
  static void write(std::FILE* stream, std::string_view text)
  {
    std::fwrite(text.data(), 1, text.size(), stream);
    std::fflush(stream);
  }
};

StandardStreams g_standard;
Output* g_installed = nullptr;

} // namespace

Output& out()
{
  return g_installed != nullptr ? *g_installed : g_standard;
}

void install_output(Output* output)
{
  g_installed = output;
}

} // namespace zl::util
