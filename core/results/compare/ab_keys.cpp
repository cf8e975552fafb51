// What must agree between the two sides of an A/B: the caliber of their runs, and the
// spelling of a Size Detail.
#include "results/compare/ab.hpp"

#include <algorithm>
#include <set>

namespace zl::results::compare {

const char* to_string(Verdict v)
{
  switch (v) {
  case Verdict::none:
    return "-";
  case Verdict::faster:
    return "faster";
  case Verdict::slower:
    return "slower";
  case Verdict::same:
    return "same";
  case Verdict::ambiguous:
    return "ambiguous";
  }
  return "-";
}

std::vector<CaliberDiff> compare_caliber(const std::vector<Run>& a, const std::vector<Run>& b)
{
  using Field = std::string Caliber::*;
  const std::pair<const char*, Field> fields[] = {{"backend", &Caliber::backend},
                                                  {"level", &Caliber::level},
                                                  {"timer", &Caliber::timer},
                                                  {"mode", &Caliber::mode},
                                                  {"tuner_cache", &Caliber::tuner_cache}};
  auto values = [](const std::vector<Run>& runs, Field f) {
    std::set<std::string> out;
    for (const auto& r : runs) {
      // A bare log's title may list several levels ("comprehensive,core"): each counts.
      std::string v = r.info.caliber.*f;
      // A field a run does not say (a bare log has no backend) was never checked: "unknown".
      if (v.empty()) {
        out.insert(k_unknown);
      }
      for (std::size_t start = 0; start < v.size();) {
        const auto comma = std::min(v.find(',', start), v.size());
        out.insert(v.substr(start, comma - start));
        start = comma + 1;
      }
    }
    return out;
  };
  auto joined = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& v : s) {
      out += (out.empty() ? "" : ",") + v;
    }
    return out;
  };
  std::vector<CaliberDiff> diffs;
  for (const auto& [name, field] : fields) {
    const auto va = values(a, field), vb = values(b, field);
    // Unknown on either side is a difference: what was never checked cannot be called equal.
    if (va != vb || va.size() > 1 || va.count(k_unknown) > 0) {
      diffs.push_back({name, joined(va), joined(vb)});
    }
  }
  // The arguments after `--` are one value each, commas and all. Runs from before zl recorded
  // them (and bare logs) do not say them: sides that passed none, as far as they say, agree, so
  // such folders still compare; what one side passed, a side that does not say cannot match.
  auto extra = [](const std::vector<Run>& runs) {
    std::set<std::string> out;
    for (const auto& r : runs) {
      out.insert(r.info.extra_args.empty() ? k_unknown : r.info.extra_args);
    }
    return out;
  };
  const auto quiet = [](const std::set<std::string>& s) {
    return std::all_of(s.begin(), s.end(), [](const std::string& v) { return v == k_unknown || v == "none"; });
  };
  const auto ea = extra(a), eb = extra(b);
  if (!(quiet(ea) && quiet(eb)) && (ea != eb || ea.size() > 1 || ea.count(k_unknown) > 0)) {
    diffs.push_back({"pytest_extra_args", joined(ea), joined(eb)});
  }
  auto values_of = [](const std::vector<Run>& runs, std::string RunInfo::*field) {
    std::set<std::string> out;
    for (const auto& r : runs) {
      out.insert(r.info.*field);
    }
    return out;
  };
  // Who ran pytest (a fresh process per run, a warm worker): runs that do not say were
  // fresh processes, so they read as "process".
  const auto xa = values_of(a, &RunInfo::executor), xb = values_of(b, &RunInfo::executor);
  if (xa != xb || xa.size() > 1) {
    diffs.push_back({"executor", joined(xa), joined(xb)});
  }
  // The device's settings (a locked clock, the power limit, ECC, MIG), as telemetry read them:
  // checked where every run of both sides read them; a run that read none cannot tell.
  const auto sa = values_of(a, &RunInfo::device_state), sb = values_of(b, &RunInfo::device_state);
  if (!sa.count("") && !sb.count("") && (sa != sb || sa.size() > 1)) {
    diffs.push_back({"device_state", joined(sa), joined(sb)});
  }
  return diffs;
}

std::string canonical_shape(std::string_view s)
{
  std::string out;
  out.reserve(s.size());
  std::string closers; // what each open bracket closes with; '\0' for torch.Size( … )
  auto is_ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (s.compare(i, 11, "torch.Size(") == 0) {
      closers += '\0';
      i += 11;
    } else if (c == '(' || c == '[' || c == '{') {
      out += c == '{' ? '{' : '[';
      closers += c == '{' ? '}' : ']';
      ++i;
    } else if (c == ')' || c == ']' || c == '}') {
      if (!out.empty() && out.back() == ',') {
        out.pop_back(); // (5,) is [5]
      }
      if (!closers.empty()) {
        if (closers.back() != '\0') {
          out += closers.back();
        }
        closers.pop_back();
      }
      ++i;
    } else if (c == '\'' || c == '"') {
      out += '"';
      for (++i; i < s.size() && s[i] != c; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          out += s[i++];
          out += s[i];
        } else {
          out += s[i] == '"' ? "\\\"" : std::string(1, s[i]);
        }
      }
      out += '"';
      ++i;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      std::size_t end = i;
      while (end < s.size() && is_ident(s[end])) {
        ++end;
      }
      const auto word = s.substr(i, end - i);
      if (word == "None" || word == "null") {
        out += "null";
      } else if (word == "True" || word == "true") {
        out += "true";
      } else if (word == "False" || word == "false") {
        out += "false";
      } else if (word == "inf" || word == "nan") {
        out += word;
      } else {
        // torch.float16 in a repr is "torch.float16" in JSON (FlagGems encodes dtypes with str()).
        out += '"';
        out += word;
        out += '"';
      }
      i = end;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

} // namespace zl::results::compare
