#include "results/op_state.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace zl::results;

TEST_CASE("zl::results::parse_op_state: every state's name parses back to it, nothing else parses")
{
  std::set<std::string_view> names;
  for (const auto& s : k_op_states) {
    CAPTURE(std::string(s.name));
    CHECK(parse_op_state(name(s.state)) == s.state);
    CHECK(names.insert(s.name).second); // no two states share a name
  }
  CHECK(names.size() == 10);
  // The names ops_status.csv and docs/plan-file.md have always used.
  CHECK(names == std::set<std::string_view>{"ok", "unsupported", "skipped", "failed", "preflight_failed", "no_rows",
                                            "timeout", "interrupted", "crashed", "pending"});
  // A run's own statuses, other spellings and the empty text are no op state.
  for (const char* text : {"", "OK", "Ok", " ok", "ok ", "running", "no_tests", "usage_error", "error", "done"}) {
    CAPTURE(std::string(text));
    CHECK_FALSE(parse_op_state(text).has_value());
  }
}

TEST_CASE("zl::results::settled: ok and what FlagGems declined, nothing else")
{
  for (const auto& s : k_op_states) {
    CAPTURE(std::string(s.name));
    const bool answer = s.state == OpState::ok || s.state == OpState::unsupported || s.state == OpState::skipped;
    CHECK(settled(s.state) == answer);
  }
}

TEST_CASE("zl::results::exit_code_of: the states zl run's exit status alone tells")
{
  CHECK(exit_code_of(OpState::preflight_failed) == 3);
  CHECK(exit_code_of(OpState::interrupted) == 130);
  CHECK(exit_code_of(OpState::crashed) == 14);
  // pytest's own passes through for the rest, or zl run does not decide them.
  for (const auto s : {OpState::ok, OpState::unsupported, OpState::skipped, OpState::failed, OpState::no_rows,
                       OpState::timeout, OpState::pending}) {
    CAPTURE(std::string(name(s)));
    CHECK_FALSE(exit_code_of(s).has_value());
  }
  // No two states claim one exit status.
  std::set<int> codes;
  for (const auto& s : k_op_states) {
    if (s.exit_code) {
      CHECK(codes.insert(*s.exit_code).second);
    }
  }
}

TEST_CASE("zl::results::tone: settled states read as ok or declined, stopped ones as stopped, the rest as failures")
{
  CHECK(tone(OpState::ok) == Tone::ok);
  CHECK(tone(OpState::unsupported) == Tone::declined);
  CHECK(tone(OpState::skipped) == Tone::declined);
  CHECK(tone(OpState::timeout) == Tone::stopped);
  CHECK(tone(OpState::interrupted) == Tone::stopped);
  for (const auto& s : k_op_states) {
    CAPTURE(std::string(s.name));
    CHECK(settled(s.state) == (s.tone == Tone::ok || s.tone == Tone::declined));
  }
}
