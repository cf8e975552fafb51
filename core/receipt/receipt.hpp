// Campaign receipts: the SHA-256 of every harness file that produced a result (the zl binary,
// the backend module, the Python plugins, the shape file, the plan) and of the result files,
// with the runs' identities, so a result can be traced to the harness build that made it.
#pragma once

#include <string>
#include <vector>

namespace zl::receipt {

struct Entry
{
  std::string role; // "zl", "backend:cuda", "plugin:zl_timing", "shapes", "result"
  std::string path; // absolute for harness files, relative to the campaign for results
  std::string sha256;
};

struct Receipt
{
  std::string campaign;              // absolute path of the campaign (or run) folder
  std::vector<std::string> run_dirs; // relative to campaign ("." for a single run)
  std::vector<Entry> harness;
  std::vector<Entry> results;
  std::vector<std::string> rejected; // harness paths named by a run that cannot be harness files
};

// Finds the run folders (a run folder itself, or a campaign folder holding them) and hashes
// everything. Throws Error when the folder holds no run.
Receipt make_receipt(const std::string& folder);

// receipt.json's text: the entries and each run's run_identity.json.
std::string receipt_json(const Receipt& r);

// Writes <campaign>/receipt.json. One there already is an error, unless force: then it is kept
// as receipt.json.N (the first free N), whose path is returned.
std::string write_receipt(const Receipt& r, bool force);

struct Mismatch
{
  std::string kind; // changed, missing, unreadable, refused (a path leading outside), added
  std::string role;
  std::string path;
  std::string expected;
  std::string found;
};

// Recomputes every digest in <folder>/receipt.json. Throws Error when there is no readable
// receipt. added lists result files the receipt does not know (a failure, like a mismatch).
// Result entries are read only inside the folder, harness entries only when the folder's
// identities and plans name them.
std::vector<Mismatch> verify_receipt(const std::string& folder, std::vector<std::string>& added);

} // namespace zl::receipt
