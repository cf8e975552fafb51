// How many samples each row gets: --sampling. "fixed" is one timing call per row, as the
// benchmark makes it; otherwise a row is sampled again until the 95% interval of its median is
// within ci of it, or a cap is reached (docs/statistics.md). The plugins read it from plan.json.
#pragma once

#include "util/json.hpp"

#include <cstdint>
#include <string>

namespace zl::run {

struct Sampling
{
  double ci = 0.005; // relative width of the median's 95% interval to reach; 0: fixed
  std::uint32_t min_samples = 10;
  std::uint32_t max_samples = 100000;
  double min_time_s = 0;
  double max_time_s = 1;

  bool fixed() const { return ci <= 0; }
};

// What --sampling accepts, for --help.
extern const char* const k_sampling_help;
// The default, as --sampling spells it.
extern const char* const k_sampling_default;

// "fixed", or "ci=0.5%[,min=N][,max=N][,min-time=S][,max-time=S]" (keys in any order, each
// once). Throws Error (exit 2) naming --sampling, the part that is wrong and what it accepts.
Sampling parse_sampling(const std::string& text);
// The canonical spelling: what parse_sampling reads back as the same Sampling.
std::string to_string(const Sampling& s);
// {"ci_width": …, "min_samples": …, …} as the plugins read it (plan key sampling).
void write_sampling(util::JsonWriter& j, const Sampling& s);

} // namespace zl::run
