// What Slurm says about the tasks of an array, read from `squeue` and `scontrol` (the outputs
// docs/slurm-local.md records), and how a Slurm state becomes one of the local batch's statuses.
#pragma once

#include "results/op_state.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::slurm {

// One array task (or the still-pending remainder of a throttled array, task unset).
struct TaskState
{
  std::optional<size_t> task; // SLURM_ARRAY_TASK_ID
  std::string state;          // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, …
  std::string reason;         // None, JobArrayTaskLimit, Resources, TimeLimit, …
  std::string node;           // empty while pending
};

// The squeue format zl asks for: `squeue -h -r -t all -j <id> -o <k_squeue_format>`.
inline constexpr const char* k_squeue_format = "%i|%T|%r|%N";

// Lines of that format; tasks of other jobs than array_id are left out.
std::vector<TaskState> parse_squeue(const std::string& text, const std::string& array_id);

// `scontrol -o show job <id>`: one record per line, key=value words.
std::vector<TaskState> parse_scontrol(const std::string& text, const std::string& array_id);

// MaxArraySize from `scontrol show config` ("MaxArraySize = 1001"): an array's task ids must stay
// below it. Empty when the text does not say.
std::optional<size_t> parse_max_array_size(const std::string& show_config);

// Whether the task has ended (a state Slurm no longer changes).
bool is_final(const std::string& state);

// The local state of an op whose task ended in slurm_state while the op's own record said
// recorded (pending: never recorded as ended). An op zl recorded as ended keeps its state, but
// an interrupted op of a task that hit its time limit is a timeout; an op left running when the
// node failed or ran out of memory is crashed, when cancelled or preempted interrupted; an op
// that never started stays pending. started: the op's run folder was begun by this attempt.
results::OpState op_status(const std::string& slurm_state, results::OpState recorded, bool started);

} // namespace zl::slurm
