// An op's state in a campaign (ops_status.csv), in one table: its name there, the exit status
// of `zl run` that tells it, whether it is settled, how it is shown. Every reader and writer of
// a state goes through this table, so that a state is named and judged in one place.
//
// Why here: batch writes the states, slurm maps Slurm's onto them, run names them in its
// identity (whose status shares their names) and results (summary, report) reads them. results
// is the lowest of those that is about FlagGems' runs (util knows nothing of them), and this
// header needs only util's exit codes, so that run and slurm take in no more of results than it.
#pragma once

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace zl::results {

enum class OpState : std::uint8_t {
  ok,
  unsupported,      // FlagGems refused a requested dtype and no test of the op passed
  skipped,          // every test skipped
  failed,           // a test failed or errored
  preflight_failed, // zl run refused to start it
  no_rows,          // pytest passed but FlagGems printed no table
  timeout,          // past --timeout-per-op, or its Slurm task hit its time limit
  interrupted,      // stopped by a signal zl was sent
  crashed,          // ended by a signal zl did not send, or took its worker with it
  pending,          // never started
};

// How a state reads to whoever watches a campaign: its answer, FlagGems declining it, stopped
// from outside, or a failure.
enum class Tone : std::uint8_t { ok, declined, stopped, failed };

struct OpStateInfo
{
  OpState state;
  std::string_view name; // as ops_status.csv and run_identity.json write it
  // zl run's exit status that means this state; none where pytest's own is passed through
  // (1 for failed and unsupported, 0 for skipped) or zl run does not decide it.
  std::optional<int> exit_code;
  // The op's answer: --resume runs it no more, and it is no failure in an exit status or a
  // summary's FAILED column.
  bool settled;
  Tone tone;
};

inline constexpr OpStateInfo k_op_states[] = {
    {OpState::ok, "ok", std::nullopt, true, Tone::ok},
    {OpState::unsupported, "unsupported", std::nullopt, true, Tone::declined},
    {OpState::skipped, "skipped", std::nullopt, true, Tone::declined},
    {OpState::failed, "failed", std::nullopt, false, Tone::failed},
    {OpState::preflight_failed, "preflight_failed", k_exit_preflight, false, Tone::failed},
    {OpState::no_rows, "no_rows", std::nullopt, false, Tone::failed},
    {OpState::timeout, "timeout", std::nullopt, false, Tone::stopped},
    {OpState::interrupted, "interrupted", k_exit_interrupted, false, Tone::stopped},
    // Not 128+N for a signal zl did not send: that would read as zl itself crashing.
    {OpState::crashed, "crashed", 14, false, Tone::failed},
    {OpState::pending, "pending", std::nullopt, false, Tone::failed},
};

constexpr const OpStateInfo& op_state_info(OpState s)
{
  return k_op_states[static_cast<std::size_t>(s)]; // the table is in the enum's order
}

constexpr std::string_view name(OpState s)
{
  return op_state_info(s).name;
}

constexpr std::optional<int> exit_code_of(OpState s)
{
  return op_state_info(s).exit_code;
}

constexpr bool settled(OpState s)
{
  return op_state_info(s).settled;
}

constexpr Tone tone(OpState s)
{
  return op_state_info(s).tone;
}

// The state of that name; none for any other text (a reader of a file says where it was).
constexpr std::optional<OpState> parse_op_state(std::string_view text)
{
  for (const auto& s : k_op_states) {
    if (s.name == text) {
      return s.state;
    }
  }
  return std::nullopt;
}

// op_state_info() indexes the table by the enum: its rows must stay in the enum's order.
constexpr bool table_in_enum_order()
{
  for (std::size_t i = 0; i < std::size(k_op_states); ++i) {
    if (static_cast<std::size_t>(k_op_states[i].state) != i) {
      return false;
    }
  }
  return std::size(k_op_states) == static_cast<std::size_t>(OpState::pending) + 1;
}
static_assert(table_in_enum_order(), "k_op_states must list every OpState once, in the enum's order");

} // namespace zl::results
