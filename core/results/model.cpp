#include "results/model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>

namespace zl::results {

const RowLabels Row::k_no_labels{};

const char* to_string(RowSource s)
{
  switch (s) {
  case RowSource::table:
    return "table";
  case RowSource::record:
    return "record";
  case RowSource::failure_line:
    return "failure_line";
  case RowSource::test_failure:
    return "test_failure";
  }
  return "table";
}

const std::string& Marker::get(std::string_view key) const
{
  static const std::string empty;
  for (const auto& [k, v] : fields) {
    if (k == key) {
      return v;
    }
  }
  return empty;
}

bool Marker::has(std::string_view key) const
{
  return std::any_of(fields.begin(), fields.end(), [&](const auto& f) { return f.first == key; });
}

std::string_view TextStore::adopt(std::string text)
{
  m_texts.push_back(std::make_unique<std::string>(std::move(text)));
  return *m_texts.back();
}

std::string_view TextStore::copy(std::string_view s)
{
  if (s.empty()) {
    return {};
  }
  if (s.size() > k_block / 4) {
    return adopt(std::string(s));
  }
  char* out = reserve(s.size(), 1);
  std::memcpy(out, s.data(), s.size());
  return {out, s.size()};
}

std::string_view TextStore::intern(std::string_view s)
{
  if (s.empty()) {
    return {};
  }
  if (const auto it = m_interned.find(s); it != m_interned.end()) {
    return *it;
  }
  return *m_interned.insert(copy(s)).first;
}

const RowLabels* TextStore::keep(const RowLabels& labels)
{
  return new (reserve(sizeof(RowLabels), alignof(RowLabels))) RowLabels(labels);
}

char* TextStore::reserve(std::size_t size, std::size_t align)
{
  m_used = (m_used + align - 1) & ~(align - 1);
  if (m_block == nullptr || m_used + size > k_block) {
    if (m_arena != nullptr) {
      m_block = static_cast<char*>(m_arena->allocate(k_block, alignof(std::max_align_t)));
    } else {
      m_blocks.emplace_back(new char[k_block]); // not zeroed: pages never filled are never touched
      m_block = m_blocks.back().get();
    }
    m_used = 0;
  }
  char* out = m_block + m_used;
  m_used += size;
  return out;
}

} // namespace zl::results
