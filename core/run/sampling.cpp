#include "run/sampling.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace zl::run {

const char* const k_sampling_help =
    "fixed (one timing call per row, as the benchmark makes it), or "
    "ci=PCT%[,min=N][,max=N][,min-time=S][,max-time=S]: sample each row again until the 95% "
    "interval of its median is within PCT% of it, with at least min samples and min-time "
    "seconds, at most max samples or max-time seconds";
const char* const k_sampling_default = "ci=0.5%,min=10,max=100000,min-time=0,max-time=1";

namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why)
{
  throw Error(fmt::format("--sampling '{}': {}. It takes {}.", text, why, k_sampling_help));
}

double number(const std::string& text, const std::string& key, std::string value)
{
  const bool percent = key == "ci" && !value.empty() && value.back() == '%';
  if (percent) {
    value.pop_back();
  } else if (key == "ci") {
    bad(text, "ci takes a percentage such as 0.5%");
  }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno != 0 || !std::isfinite(v) || v < 0) {
    bad(text, fmt::format("{} takes a finite non-negative number, not '{}'", key, value));
  }
  return percent ? v / 100 : v;
}

std::uint32_t count(const std::string& text, const std::string& key, const std::string& value)
{
  const double v = number(text, key, value);
  if (v != std::floor(v) || v < 1 || v > 1e9) {
    bad(text, fmt::format("{} takes a whole number from 1, not '{}'", key, value));
  }
  return static_cast<std::uint32_t>(v);
}

} // namespace

Sampling parse_sampling(const std::string& text)
{
  Sampling s;
  if (text == "fixed") {
    s.ci = 0;
    return s;
  }
  std::set<std::string> seen;
  for (const auto& part : util::split(text, ',', false)) {
    const auto eq = part.find('=');
    const auto key = part.substr(0, eq);
    if (eq == std::string::npos || !seen.insert(key).second) {
      bad(text,
          eq == std::string::npos ? fmt::format("'{}' is not KEY=VALUE", part) : fmt::format("{} is given twice", key));
    }
    const auto value = part.substr(eq + 1);
    if (key == "ci") {
      s.ci = number(text, key, value);
    } else if (key == "min" || key == "max") {
      (key == "min" ? s.min_samples : s.max_samples) = count(text, key, value);
    } else if (key == "min-time" || key == "max-time") {
      (key == "min-time" ? s.min_time_s : s.max_time_s) = number(text, key, value);
    } else {
      bad(text, fmt::format("'{}' is no key of it", key));
    }
  }
  if (!seen.count("ci") || s.ci <= 0) {
    bad(text, "ci must be given and above 0% (fixed turns sampling off)");
  }
  if (s.min_samples > s.max_samples || s.min_time_s > s.max_time_s) {
    bad(text, "a minimum is above its maximum");
  }
  return s;
}

std::string to_string(const Sampling& s)
{
  if (s.fixed()) {
    return "fixed";
  }
  return fmt::format("ci={:g}%,min={},max={},min-time={:g},max-time={:g}", s.ci * 100, s.min_samples, s.max_samples,
                     s.min_time_s, s.max_time_s);
}

void write_sampling(util::JsonWriter& j, const Sampling& s)
{
  auto& w = j.w();
  w.StartObject();
  j.field("ci_width", s.ci);
  j.field("min_samples", s.min_samples);
  j.field("max_samples", s.max_samples);
  j.field("min_time_s", s.min_time_s);
  j.field("max_time_s", s.max_time_s);
  w.EndObject();
}

} // namespace zl::run
