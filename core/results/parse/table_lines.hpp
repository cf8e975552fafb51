// The grammar of single lines of FlagGems' text output (docs/flaggems-facts.md §1), one
// function per kind of line; table_parser.hpp puts them together.
#pragma once

#include "results/model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace zl::results::parse {

// "Operator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)"
struct Title
{
  std::string_view op, dtype, mode, level;
};
// nullopt with error set when the line starts with "Operator: " but cannot be read.
std::optional<Title> parse_title(std::string_view line, std::string& error);

// The column header under a title: Status, the two latencies, Gems Speedup, then optionally
// TFLOPS and the two GBPS columns, then Size Detail. Empty on success, else what is wrong.
std::string check_columns(std::string_view line);

// A row: SUCCESS or FAILED, three cells (latencies and speedup; numbers or N/A), then the
// extra cells the row has (1: TFLOPS, 2: the GBPS pair, 3: both), ten spaces and the Size
// Detail. Fills the cells, success and shape of row; returns null, or what is wrong.
const char* parse_row(std::string_view line, Row& row);

// FlagGems' red line for an exception from the input iterator:
// "\033[31mFAILED\033[0m: Operator=<op> dtype={dtype} err=<<<{e}>>>" (the braces may be
// literal: those parts are not f-strings in some versions). The message may continue on
// later lines, up to ">>>".
struct FailureLine
{
  std::string_view op;
  std::string_view dtype;         // empty when printed as the literal {dtype}
  std::size_t message_offset = 0; // where the message starts, from the start of the line
};
// nullopt when the line is not one; error set when it is one but cannot be read.
std::optional<FailureLine> parse_failure_line(std::string_view line, std::string& error);

// pytest's short summary line for a test: "FAILED <node> - <reason>" or "ERROR <node> …".
struct TestFailure
{
  std::string_view node, reason;
};
std::optional<TestFailure> parse_test_failure(std::string_view line);

// True when a failure's reason is FlagGems refusing a requested dtype ("ValueError: Given
// dtype(s) 'torch.float16'can't be supported by this op 'X'", every release since v3.0): the
// op's answer, not a failed row (the run's identity records it as unsupported). Only the start
// is matched: pytest cuts summary lines at the terminal's width.
bool is_dtype_refusal(std::string_view reason);

// The op a pytest node's function stands for, as FLAGGEMS_PERF_CURRENT_OP holds it:
// benchmark/test_add.py::test_add_alpha[2] -> add_alpha.
std::string op_of_node(std::string_view node);

// True when a and b name the same node, one perhaps with a longer path.
bool same_node(std::string_view a, std::string_view b);

std::string_view trim_blanks(std::string_view s);

} // namespace zl::results::parse
