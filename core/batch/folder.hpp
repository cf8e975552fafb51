// The campaign folder and the inputs a batch reads: what --out may be, who owns it, which
// caliber it holds, and the option values that make sense (checked before anything is written).
#pragma once

#include "batch/caliber.hpp"
#include "batch/lock.hpp"
#include "batch/ops_status.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zl::batch {

struct OpenSpec
{
  std::string out_dir; // absolute
  bool resume = false;
  bool force = false; // resume a campaign that has no caliber record, on this command's word
  Caliber caliber;
};

struct OpenCampaign
{
  std::unique_ptr<CampaignLock> lock; // held for the whole campaign
  std::vector<OpStatus> statuses;     // the campaign's rows so far (empty for a new one)
};

// The campaign folder, absolute: --out as given (an empty one is refused), else the default
// campaigns/<UTC time>-<backend> under the working folder.
std::string campaign_folder(const std::optional<std::string>& given, const std::string& backend);

// Refuses (Error, exit 2) an --out that holds a control character, is not a folder, cannot be
// looked at, is a run folder, lies inside a campaign or a run folder, or (without --resume)
// holds files that are not a campaign of zl's. Writes nothing.
void check_out_path(const std::string& out_dir, bool resume);

// The executor a campaign in out_dir recorded ("process" for a campaign of an earlier zl, which
// had no other); nullopt when out_dir holds no campaign or its record cannot be read (open_campaign
// then says why). --resume without --executor continues with it.
std::optional<std::string> recorded_executor(const std::string& out_dir);

// check_out_path, then the folder is created and locked, the previous owner checked, and the
// campaign's record read (--resume: compared with this caliber) or written (a new campaign).
OpenCampaign open_campaign(const OpenSpec& spec);

// --timeout-per-op: a finite number of seconds, at least 1. Error (exit 2) otherwise.
double parse_timeout_per_op(const std::string& text);

// An ops file: one op per line, # starts a comment. Only a regular file is read (a FIFO would
// block, a folder is a mistake), at most 1 MiB.
std::vector<std::string> read_ops_file(const std::string& path);

} // namespace zl::batch
