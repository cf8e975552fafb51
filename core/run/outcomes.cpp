#include "run/outcomes.hpp"

#include "results/op_state.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>

namespace zl::run {

namespace {

void add_distinct(std::vector<std::string>& list, const std::string& value)
{
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(value);
  }
}

long long& counter(TestOutcomes& t, const std::string& outcome)
{
  if (outcome == "passed") {
    return t.passed;
  }
  if (outcome == "skipped") {
    return t.skipped;
  }
  if (outcome == "unsupported") {
    return t.unsupported;
  }
  return outcome == "failed" ? t.failed : t.error;
}

} // namespace

std::optional<TestOutcomes> read_outcomes(const std::string& path)
{
  boost::system::error_code ec;
  if (!boost::filesystem::is_regular_file(path, ec)) {
    return std::nullopt;
  }
  const auto text = util::read_file(path);
  rapidjson::Document d;
  if (d.Parse(text.c_str(), text.size()).HasParseError() || !d.IsObject() || !d.HasMember("tests") ||
      !d["tests"].IsArray()) {
    throw Error(fmt::format("{} is not the outcomes document zl_identity writes (an object with a tests list); "
                            "remove it and run again",
                            path));
  }
  TestOutcomes t;
  for (const auto& test : d["tests"].GetArray()) {
    if (!test.IsObject() || !test.HasMember("outcome") || !test["outcome"].IsString()) {
      continue;
    }
    const std::string outcome = test["outcome"].GetString();
    ++counter(t, outcome);
    const std::string reason = test.HasMember("reason") && test["reason"].IsString() ? test["reason"].GetString() : "";
    if (outcome == "skipped") {
      add_distinct(t.skip_reasons, reason);
    } else if (outcome == "unsupported") {
      add_distinct(t.unsupported_dtypes, reason.rfind("dtype(s) ", 0) == 0 ? reason.substr(9) : reason);
    }
  }
  return t;
}

std::string refine_status(const std::string& status, const TestOutcomes& t)
{
  using results::OpState;
  const auto state = results::parse_op_state(status);
  const bool only_refusals = t.failed == 0 && t.error == 0 && t.unsupported > 0;
  if (state == OpState::failed && only_refusals) {
    return std::string(results::name(t.passed > 0 ? OpState::ok : OpState::unsupported));
  }
  if (state == OpState::ok && t.passed == 0 && t.skipped > 0) {
    return std::string(results::name(OpState::skipped));
  }
  return status;
}

} // namespace zl::run
