// Executors by name, for `zl batch --executor NAME`. A new executor adds one row to the table in
// core/exec/factory.cpp.
#pragma once

#include "exec/executor.hpp"
#include "exec/invocation.hpp"
#include "loader/module.hpp"

#include <memory>
#include <string>
#include <vector>

namespace zl::exec {

// What an executor may need to know to start the ops of a campaign.
struct ExecutorSetup
{
  ZlCommand zl;                            // how a child zl is started
  const loader::Module* backend = nullptr; // the campaign's backend (visibility variable, …)
  std::vector<loader::Device> devices;     // one slot each, in slot order
};

// The executor of a campaign that names none: warm (imports paid once per device; measured on
// the H200 to give the numbers a fresh process gives, README.md's executors section), except
// with --isolate-tuner-cache, which needs a fresh process per op.
std::string default_executor(bool isolate_tuner_cache);

// The names make_executor accepts, in the order --help lists them.
std::vector<std::string> executor_names();

// Throws Error (exit 2) for a name make_executor does not know, naming the accepted ones.
void check_executor_name(const std::string& name);

// check_executor_name, then the executor.
std::unique_ptr<Executor> make_executor(const std::string& name, const ExecutorSetup& setup);

} // namespace zl::exec
