// zl's command line: global options, the subcommand table, the one top-level catch.
#pragma once

#include "loader/registry.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zl::cli {

// What the global options say, and the backends they lead to (discovered on first use).
class Context
{
public:
  std::optional<std::string> backend;     // --backend
  std::vector<std::string> backend_paths; // --backend-path, in order
  std::vector<std::string> command_line;  // zl's whole argv, for the run identity

  const loader::Registry& registry();
  // The backend the user asked for (--backend, then ZL_BACKEND), else the automatic choice.
  loader::Selection select_backend();

private:
  std::unique_ptr<loader::Registry> m_registry;
};

using Args = std::vector<std::string>;

int cmd_backends(Context& ctx, const Args& args);
int cmd_devices(Context& ctx, const Args& args);
int cmd_calibrate(Context& ctx, const Args& args);
int cmd_run(Context& ctx, const Args& args);
int cmd_plan(Context& ctx, const Args& args);
int cmd_summary(Context& ctx, const Args& args);
int cmd_report(Context& ctx, const Args& args);
int cmd_sweep(Context& ctx, const Args& args);
int cmd_receipt(Context& ctx, const Args& args);
int cmd_batch(Context& ctx, const Args& args);
int cmd_ab(Context& ctx, const Args& args);
int cmd_history(Context& ctx, const Args& args);

// The subcommands' names, in the order --help lists them (for tests/fuzz/fuzz_cli.cpp, which
// must know every command that writes files).
std::vector<std::string> command_names();

int main(int argc, char** argv);

} // namespace zl::cli
