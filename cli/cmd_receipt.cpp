// zl receipt: the SHA-256 of the harness files and results of a campaign, and their check.
#include "output.hpp"

#include "receipt/receipt.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
  "zl receipt [--verify] FOLDER\n\n"
  "Writes FOLDER/receipt.json: the SHA-256 (OpenSSL) of every harness file that produced the\n"
  "result (the zl binary, each loaded backend module, the Python plugins, the shape file) and of\n"
  "every result file (run.log, record.log, plan.json, run_identity.json, shapes.yaml,\n"
  "ops_status.csv, logs), with each run's identity. FOLDER is a run folder or a campaign folder.\n"
  "Stores (*.sqlite) are left out: summaries re-ingest them.\n"
  "--verify recomputes every digest and lists each file that changed or is missing (exit 1),\n"
  "and names result files the receipt does not cover (reported, not a failure).\n\n"
  "Examples:\n"
  "  zl receipt campaigns/nightly\n"
  "  zl receipt --verify campaigns/nightly";

} // namespace

int cmd_receipt(Context& /*ctx*/, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("verify", "check an existing receipt.json instead of writing one")(
    "folder", po::value<std::string>(), "the run or campaign folder");
  const auto vm = parse_options("receipt", k_usage, desc, args, {"folder"});
  if (!vm) {
    return 0;
  }
  if (!vm->count("folder")) {
    throw Error("zl receipt: name the run or campaign folder; `zl receipt --help` says more");
  }
  const auto folder = (*vm)["folder"].as<std::string>();
  if (vm->count("verify")) {
    std::vector<std::string> added;
    const auto mismatches = receipt::verify_receipt(folder, added);
    for (const auto& m : mismatches) {
      std::cout << fmt::format("{:<10} {} {} (receipt {}{})\n", m.kind, m.role, m.path, m.expected.substr(0, 16),
                               m.found.empty() ? "" : ", now " + m.found.substr(0, 16));
    }
    for (const auto& a : added) {
      std::cout << fmt::format("{:<10} {} (not in the receipt)\n", "added", a);
    }
    std::cout << fmt::format("{}: {}\n", folder,
                             mismatches.empty() ? "every digest matches" : fmt::format("{} mismatches", mismatches.size()));
    return mismatches.empty() ? 0 : 1;
  }
  const auto r = receipt::make_receipt(folder);
  util::write_file_atomic(r.campaign + "/receipt.json", receipt::receipt_json(r));
  std::cout << fmt::format("{}/receipt.json: {} harness files, {} result files, {} runs\n", r.campaign,
                           r.harness.size(), r.results.size(), r.run_dirs.size());
  return 0;
}

} // namespace zl::cli
