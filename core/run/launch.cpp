#include "run/launch.hpp"

#include "run/node.hpp"
#include "run/preflight.hpp"

#include <boost/filesystem.hpp>

#include <cstdio>

namespace zl::run {

Sinks standard_sinks()
{
  auto to = [](std::FILE* out) {
    return [out](std::string_view chunk) {
      std::fwrite(chunk.data(), 1, chunk.size(), out);
      std::fflush(out);
    };
  };
  return {to(stdout), to(stderr)};
}

Launched ProcessLauncher::launch(const Plan& plan, const Sinks& sinks)
{
  util::SpawnSpec spec;
  spec.argv = plan.argv;
  spec.env = child_environment(plan);
  spec.cwd = plan.run_dir;
  spec.new_process_group = true;
  spec.end_leftovers = true;
  spec.signals = m_signals;
  Launched launched;
  spec.on_spawn = [&launched](int pid) { launched.executor.pid = pid; };
  // Orphans of the benchmark (double fork, setsid) are reparented to zl, which ends them.
  util::become_subreaper();
  launched.result = util::run(spec, sinks.out, sinks.err);
  launched.executor.ops_before = 0;
  return launched;
}

Plan checked_plan(Request request, const std::function<loader::Selection()>& select)
{
  // Preflight first: a wrong path fails as a wrong path before anything else is asked of it.
  PreflightInput in;
  in.flaggems_dir = request.flaggems_dir;
  in.flaggems_dir_from = request.flaggems_dir_from;
  if (!request.flaggems_dir.empty() && boost::filesystem::is_directory(request.flaggems_dir)) {
    const auto node =
        resolve_node(request.flaggems_dir, request.op, request.op_file, request.test_node, request.python);
    in.benchmark_file = node.file;
    in.how_resolved = node.how;
    in.node_problem = node.problem;
    in.op = node.op;
  }
  in.shape_file = request.shape_file;
  in.replay_from = request.replay_from;
  in.python = request.python;
  preflight(in);
  const auto selection = select();
  auto plan = make_plan(request, *selection.module, selection.how);
  check_record_log_name({plan.argv.begin() + 3, plan.argv.end()});
  return plan;
}

int run_checked(const Request& request, const std::function<loader::Selection()>& select,
                const std::function<int(const Plan&)>& execute, const Sinks& sinks)
{
  Plan plan;
  try {
    plan = checked_plan(request, select);
  } catch (const PreflightError& e) {
    sinks.out(e.marker() + "\n");
    sinks.err(std::string("zl: preflight failed: ") + e.what() + "\n");
    return e.exit_code();
  }
  return execute(plan);
}

} // namespace zl::run
