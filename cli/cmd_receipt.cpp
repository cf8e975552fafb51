// zl receipt: the SHA-256 of the harness files and results of a campaign, and their check.
#include "output.hpp"

#include "receipt/receipt.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <iostream>

namespace zl::cli {

namespace {

constexpr const char* k_usage =
    "zl receipt [--verify | --force] FOLDER\n\n"
    "Writes FOLDER/receipt.json: the SHA-256 (OpenSSL) of every harness file that produced the\n"
    "result (the zl binary, each loaded backend module, the Python plugins, the shape file) and of\n"
    "every result file (run.log, record.log, plan.json, run_identity.json, shapes.yaml,\n"
    "ops_status.csv, logs), with each run's identity. FOLDER is a run folder or a campaign folder.\n"
    "Stores (*.sqlite) are left out: summaries re-ingest them.\n"
    "An existing receipt.json is never replaced unless --force is given; the old one is then kept\n"
    "as receipt.json.N.\n"
    "--verify recomputes every digest and lists each file that changed, is missing, is unreadable\n"
    "or was added since (a new run, a new log): any of them fails the check (exit 1). Paths in the\n"
    "receipt are followed only inside FOLDER (results) or when a run's identity or plan in FOLDER\n"
    "names them (harness files); any other is listed as refused, and never read.\n\n"
    "Examples:\n"
    "  zl receipt campaigns/nightly\n"
    "  zl receipt --verify campaigns/nightly";

} // namespace

int cmd_receipt(Context& /*ctx*/, const Args& args)
{
  po::options_description desc("Options");
  desc.add_options()("verify", "check an existing receipt.json instead of writing one")(
      "force", "replace an existing receipt.json (the old one is kept as receipt.json.N)")(
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
      // A digest is shortened; a reason (unreadable, refused) is shown whole.
      const bool digest = m.kind == "changed";
      std::cout << fmt::format("{:<10} {} {} (receipt {}{})\n", m.kind, util::printable(m.role, 64),
                               util::printable(m.path), util::printable(m.expected.substr(0, 16)),
                               m.found.empty() ? "" : (digest ? ", now " + m.found.substr(0, 16) : ": " + m.found));
    }
    for (const auto& a : added) {
      std::cout << fmt::format("{:<10} {} (not in the receipt)\n", "added", util::printable(a));
    }
    const auto failures = mismatches.size() + added.size();
    std::cout << fmt::format("{}: {}\n", util::printable(folder),
                             failures == 0 ? "every digest matches"
                                           : fmt::format("{} mismatch{}", failures, failures == 1 ? "" : "es"));
    return failures == 0 ? 0 : 1;
  }
  const auto r = receipt::make_receipt(folder);
  const auto kept = receipt::write_receipt(r, vm->count("force") > 0);
  std::cout << fmt::format("{}/receipt.json: {} harness files, {} result files, {} runs{}\n",
                           util::printable(r.campaign), r.harness.size(), r.results.size(), r.run_dirs.size(),
                           kept.empty() ? "" : fmt::format(" (the previous one kept as {})", util::printable(kept)));
  return 0;
}

} // namespace zl::cli
