#include "run/autotune_log.hpp"

#include "results/parse/marker_names.hpp"
#include "util/string.hpp"

#include <rapidjson/document.h>

#include <cstdlib>

namespace zl::run {

MarkerFields parse_marker_fields(std::string_view rest)
{
  MarkerFields fields;
  size_t i = 0;
  while (i < rest.size()) {
    const auto eq = rest.find('=', i);
    if (eq == std::string_view::npos) {
      break;
    }
    std::string key(util::trim(rest.substr(i, eq - i)));
    std::string value;
    i = eq + 1;
    if (i < rest.size() && rest[i] == '"') {
      // A JSON string literal: let RapidJSON find its end and decode it.
      rapidjson::Document d;
      const std::string tail(rest.substr(i));
      d.Parse<rapidjson::kParseStopWhenDoneFlag>(tail.c_str());
      if (d.HasParseError() || !d.IsString()) {
        break;
      }
      value.assign(d.GetString(), d.GetStringLength());
      size_t end = i + 1;
      for (bool escaped = false; end < rest.size(); ++end) {
        if (!escaped && rest[end] == '"') {
          break;
        }
        escaped = !escaped && rest[end] == '\\';
      }
      i = end + 1;
    } else {
      const auto space = rest.find(' ', i);
      value = std::string(rest.substr(i, space == std::string_view::npos ? std::string_view::npos : space - i));
      i = space == std::string_view::npos ? rest.size() : space;
    }
    fields.emplace_back(std::move(key), std::move(value));
    while (i < rest.size() && rest[i] == ' ') {
      ++i;
    }
  }
  return fields;
}

AutotuneTally tally_autotune(std::string_view log)
{
  namespace names = results::parse::marker_names;
  AutotuneTally t;
  for (const auto& line : util::split(log, '\n')) {
    const std::string_view l(line);
    const auto space = l.find(' ');
    const auto name = l.substr(0, space);
    const auto rest = space == std::string_view::npos ? std::string_view() : l.substr(space + 1);
    if (name == names::k_autotune_replay_fallback) {
      ++t.fallbacks;
    } else if (name == names::k_autotune_benchmarked) {
      ++t.tuned_keys;
      for (const auto& [k, v] : parse_marker_fields(rest)) {
        if (k == "configs") {
          t.configs_benchmarked += std::atoll(v.c_str());
        }
      }
    } else if (name == names::k_autotune_summary) {
      t.summary = parse_marker_fields(rest);
    }
  }
  return t;
}

} // namespace zl::run
