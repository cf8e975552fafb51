// The two ends of a Slurm campaign that run on the cluster: an array task and the final step
// (slurm/campaign.hpp tells the whole design).
#pragma once

#include "exec/invocation.hpp"
#include "loader/module.hpp"
#include "slurm/state.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::slurm {

// Inside array task `task`: runs its slice with the warm executor on the devices the allocation
// leaves visible. zl: how the warm executor starts a child zl. Returns run_campaign's exit code.
int run_task(const std::string& out_dir, size_t task, const loader::Module& backend, const exec::ZlCommand& zl);

// The final step: merges the tasks' records and Slurm states into ops_status.csv and the
// campaign's store (<out>/results.sqlite), and writes slurm/final.done. Run by the final job, or
// by the submitting zl as soon as it sees the array end; whichever holds the campaign's lock
// records it, the other finds it recorded. Returns the local batch's exit code (0 every op ok, 1
// otherwise), or nullopt when !wait_for_lock and the other holds the lock. seen: the array's
// tasks as the caller has just read them (squeue); when every task COMPLETED, sacct could add
// nothing and is not asked (its round trips are most of a small campaign's recording time).
std::optional<int> finish_campaign(const std::string& out_dir, bool wait_for_lock,
                                   const std::vector<slurm::TaskState>& seen = {});

} // namespace zl::slurm
