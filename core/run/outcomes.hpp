// How each test of a run ended, as zl_identity wrote it (outcomes.json, docs/plan-file.md), and
// the run's status that follows: FlagGems refusing a requested dtype is `unsupported`, a
// session whose every test was skipped is `skipped`, neither is `failed`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zl::run {

struct TestOutcomes
{
  long long passed = 0, failed = 0, error = 0, skipped = 0, unsupported = 0;
  std::vector<std::string> skip_reasons;       // distinct, in order of first appearance
  std::vector<std::string> unsupported_dtypes; // what FlagGems refused, distinct ("torch.float16")
};

// Reads outcomes.json; nullopt when the file is absent (pytest never reached its end). Throws
// Error naming the file when it is there but not zl_identity's document.
std::optional<TestOutcomes> read_outcomes(const std::string& path);

// The run's status (the identity's: an op state's name, or one only a run has) once its tests'
// outcomes are known: pytest's own "failed" becomes "unsupported" when every failure was
// FlagGems refusing a dtype and no test passed, "ok" when some test passed; "ok" becomes
// "skipped" when no test passed and some were skipped.
std::string refine_status(const std::string& status, const TestOutcomes& t);

} // namespace zl::run
