// ops_status.csv of an earlier campaign, as `zl batch --resume` and `zl summary` read it.
// Differential: what format_ops_status writes of what was read parses back to the same rows.
#include "batch/ops_status.hpp"
#include "fuzz_util.hpp"
#include "util/error.hpp"

#include <cmath>
#include <tuple>

namespace {

auto fields(const zl::batch::OpStatus& o)
{
  return std::tie(o.op, o.status, o.exit_code, o.rows, o.backend, o.device_index, o.device_uuid, o.timer, o.level,
                  o.run_dir, o.direct_fallbacks, o.poisoned, o.replay_fallbacks, o.slurm_state);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  std::vector<zl::batch::OpStatus> ops;
  try {
    ops = zl::batch::parse_ops_status(std::string(zl::fuzz::as_text(data, size)), "ops_status.csv");
  } catch (const zl::Error&) {
    return 0;
  }
  const auto back = zl::batch::parse_ops_status(zl::batch::format_ops_status(ops), "ops_status.csv");
  if (back.size() != ops.size()) {
    __builtin_trap();
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    // duration_s is written with the precision the file keeps; the rest must come back exactly.
    const auto& a = ops[i].duration_s;
    const auto& b = back[i].duration_s;
    if (fields(ops[i]) != fields(back[i]) || a.has_value() != b.has_value() ||
        (a && std::isfinite(*a) && std::abs(*a - *b) > 1e-3 * std::max(1.0, std::abs(*a)))) {
      __builtin_trap();
    }
  }
  return 0;
}
