// An open-addressing hash index of item numbers, for grouping a million rows without a node
// allocation per key (std::unordered_map costs more than the parsing it serves).
#pragma once

#include "util/memory.hpp"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace zl::util {

class FlatIndex
{
public:
  static constexpr std::uint32_t k_none = 0xFFFFFFFFu;

  explicit FlatIndex(std::size_t expected = 16) { m_slots.assign(capacity_for(expected), Slot{}); }

  // The slot of the item equal to the probe (same(item) is true), or a new slot holding k_none
  // that the caller must fill with its item before the next call.
  template <typename Same>
  std::uint32_t& slot(std::uint64_t hash, Same&& same)
  {
    if ((m_used.size() + 1) * 2 > m_slots.size()) {
      rehash(m_slots.size() * 2);
    }
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      auto& s = m_slots[i];
      if (s.item == k_none) {
        s.hash = hash;
        m_used.push_back(static_cast<std::uint32_t>(i));
        return s.item;
      }
      if (s.hash == hash && same(s.item)) {
        return s.item;
      }
    }
  }

  // The item equal to the probe, or k_none.
  template <typename Same>
  std::uint32_t find(std::uint64_t hash, Same&& same) const
  {
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const auto& s = m_slots[i];
      if (s.item == k_none) {
        return k_none;
      }
      if (s.hash == hash && same(s.item)) {
        return s.item;
      }
    }
  }

  // Empties the index for reuse, touching only the slots that were filled.
  void clear()
  {
    for (const auto i : m_used) {
      m_slots[i] = Slot{};
    }
    m_used.clear();
  }

  std::size_t size() const { return m_used.size(); }

private:
  // Hash and item side by side: one cache miss per probe, not two.
  struct Slot
  {
    std::uint64_t hash = 0;
    std::uint32_t item = k_none;
  };

  static std::size_t capacity_for(std::size_t expected)
  {
    std::size_t n = 16;
    while (n < expected * 2) {
      n *= 2;
    }
    return n;
  }

  void rehash(std::size_t capacity)
  {
    BigVector<Slot> old(capacity);
    old.swap(m_slots);
    const std::size_t mask = capacity - 1;
    std::vector<std::uint32_t> used;
    used.reserve(m_used.size());
    for (const auto j : m_used) {
      std::size_t i = old[j].hash & mask;
      while (m_slots[i].item != k_none) {
        i = (i + 1) & mask;
      }
      m_slots[i] = old[j];
      used.push_back(static_cast<std::uint32_t>(i));
    }
    m_used.swap(used);
  }

  BigVector<Slot> m_slots;
  std::vector<std::uint32_t> m_used; // filled slots, for clear() and rehash()
};

// Hashes of strings and their combination.
inline std::uint64_t hash_text(std::string_view s)
{
  return std::hash<std::string_view>{}(s);
}
inline std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v)
{
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

} // namespace zl::util
