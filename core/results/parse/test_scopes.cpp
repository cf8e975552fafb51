#include "results/parse/test_scopes.hpp"

#include "results/parse/table_lines.hpp"

#include <algorithm>
#include <utility>

namespace zl::results::parse {

void TestScopes::keep_current()
{
  ++m_scopes;
  if (m_current.node.empty()) {
    return; // a scope without a node is never asked for
  }
  const auto [at, fresh] = m_index.emplace(m_current.node, m_nodes.size());
  if (fresh) {
    m_nodes.push_back({m_current.node, {}, {}, {}, false, 0});
  }
  auto& n = m_nodes[at->second];
  n.op = m_current.op;
  n.timer = m_current.timer;
  n.poisoned = m_current.poisoned;
  n.failed = n.failed || m_current.failed;
  n.seen = m_scopes;
}

void TestScopes::open(Scope s)
{
  if (!m_current_kept) {
    keep_current();
  }
  m_current = std::move(s);
  m_current_kept = false;
}

TestTrace TestScopes::trace(std::string_view node)
{
  if (!m_current_kept) { // the current scope is asked for too: the log ends in it
    keep_current();
    m_current_kept = true;
  }
  TestTrace t;
  std::size_t last = 0;
  for (const auto& n : m_nodes) {
    if (!same_node(n.node, node)) {
      continue;
    }
    t.left_trace = t.left_trace || n.failed;
    if (!t.found || n.seen > last) {
      t.found = true;
      last = n.seen;
      t.op = n.op, t.timer = n.timer, t.poisoned = &n.poisoned;
    }
  }
  return t;
}

void TestScopes::failed(std::string_view node, std::string_view reason, std::uint32_t line)
{
  m_pending.push_back({std::string(node), std::string(reason), line});
}

std::vector<UnexplainedFailure> TestScopes::unexplained(std::string_view run_timer)
{
  std::vector<UnexplainedFailure> out;
  // A failed test counts once: as the FAILED rows or the failure line it left, else as itself.
  for (const auto& f : m_pending) {
    // zl_identity said FlagGems refused a dtype there: pytest's line for it may be cut before
    // the words is_dtype_refusal knows.
    const bool refused = std::any_of(m_unsupported.begin(), m_unsupported.end(),
                                     [&](const std::string& node) { return same_node(node, f.node); });
    if (refused) {
      continue;
    }
    const auto t = trace(f.node);
    if (t.left_trace) {
      continue;
    }
    out.push_back({t.found && !t.op.empty() ? std::string(t.op) : op_of_node(f.node),
                   t.found && !t.timer.empty() ? t.timer : run_timer, f.reason.empty() ? "the test failed" : f.reason,
                   f.line, t.found ? t.poisoned : nullptr});
  }
  return out;
}

} // namespace zl::results::parse
