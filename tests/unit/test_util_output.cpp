// Where core says things (core/util/output.cpp): an installed Output takes every line, and the
// standard streams come back when it is removed.
#include "util/output.hpp"

#include "batch/progress.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace zl;

namespace {

class Kept : public util::Output
{
public:
  void result(std::string_view text) override { results += text; }
  void say(std::string_view text) override { said += text; }
  bool terminal() const override { return false; }
  std::string results, said;
};

// Installs an Output for one test's body, whatever it throws.
struct Installed
{
  explicit Installed(util::Output& o) { util::install_output(&o); }
  ~Installed() { util::install_output(nullptr); }
};

} // namespace

TEST_CASE("zl::util::out: the installed Output takes what core says; removing it restores the streams")
{
  Kept kept;
  {
    Installed installed(kept);
    CHECK(&util::out() == &kept);
    util::out().result("/tmp/c/ops_status.csv\n");
    util::out().say("zl batch: note\n");
  }
  CHECK(kept.results == "/tmp/c/ops_status.csv\n");
  CHECK(kept.said == "zl batch: note\n");
  CHECK(&util::out() != &kept);
}

TEST_CASE("zl::util::out: a campaign's progress goes through it, as plain lines where no terminal is")
{
  Kept kept;
  Installed installed(kept);
  batch::Progress progress(2, 1);
  progress.started("abs", 0);
  progress.finished("abs", results::OpState::ok, 1.5, 9, 0u);
  progress.refresh(1); // no status line off a terminal
  CHECK(kept.said == "zl batch: start abs on device 0\nzl batch: [1/2] abs ok on device 0 (1.5 s, 9 rows)\n");
  CHECK(kept.results.empty());
}
