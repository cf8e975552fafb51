// The tests of a text log as its parser meets them: each ZL_TIMER opens one test's scope (its
// timer, its fallback markers), and a failed test that pytest names at the end is matched to
// what its scope left. Kept by node, not by scope: a log that runs the same tests again and
// again costs what it costs once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zl::results::parse {

struct FallbackMark
{
  std::string op, dtype, shape;
  std::size_t marker; // its index in the log's markers (when they are kept)
};

// One test, from its ZL_TIMER on: the timer of its tables and its fallback markers.
struct Scope
{
  std::string node, op;
  std::string_view timer;
  std::vector<FallbackMark> fallbacks;
  std::vector<std::size_t> poisoned; // its BENCHMARK_CAPTURE_POISONED markers: they concern its failure
  bool failed = false;               // it left a FAILED row or a failure line
};

// What the scopes of the nodes that match a failed test say of it.
struct TestTrace
{
  bool found = false;                         // some scope's node matches
  std::string_view op, timer;                 // of the last scope that matches
  const std::vector<std::size_t>* poisoned{}; // of the last scope that matches
  bool left_trace = false;                    // a scope that matches failed (rows or a failure line)
};

// A failed test that left nothing else: a row of its own.
struct UnexplainedFailure
{
  std::string op;         // its scope's, else the node's function (op_of_node)
  std::string_view timer; // its scope's, else the run's
  std::string reason;
  std::uint32_t line = 0;                     // of pytest's line
  const std::vector<std::size_t>* poisoned{}; // its scope's BENCHMARK_CAPTURE_POISONED markers
};

class TestScopes
{
public:
  // The scope rows are read in now (before any ZL_TIMER: one without a node).
  Scope& current() { return m_current; }
  const Scope& current() const { return m_current; }
  // A ZL_TIMER: the current scope is done with, s is the new one.
  void open(Scope s);
  // What the scopes met so far, the current one too, say of a failed test's node (same_node).
  TestTrace trace(std::string_view node);

  // pytest's line for a failed test ("FAILED node - reason"), at line.
  void failed(std::string_view node, std::string_view reason, std::uint32_t line);
  // A ZL_UNSUPPORTED marker's node: FlagGems refused a dtype there (pytest may cut the words).
  void unsupported(std::string node) { m_unsupported.push_back(std::move(node)); }
  // The failed tests, in pytest's order, that count once as themselves: not refused, and with
  // no FAILED row or failure line in a scope of theirs. run_timer: the ZL_RUN's.
  std::vector<UnexplainedFailure> unexplained(std::string_view run_timer);

private:
  void keep_current();

  Scope m_current;
  bool m_current_kept = false;
  // Per node: what its last scope says, whether any of its scopes failed, when it was last met.
  struct Node
  {
    std::string node, op;
    std::string_view timer;
    std::vector<std::size_t> poisoned;
    bool failed = false;
    std::size_t seen = 0;
  };
  std::vector<Node> m_nodes;
  std::unordered_map<std::string, std::size_t> m_index;
  std::size_t m_scopes = 0;
  struct Pending
  {
    std::string node, reason;
    std::uint32_t line;
  };
  std::vector<Pending> m_pending;
  std::vector<std::string> m_unsupported;
};

} // namespace zl::results::parse
