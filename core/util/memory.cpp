#include "util/memory.hpp"

#include <sys/mman.h>

namespace zl::util {

namespace {

constexpr std::size_t k_huge = std::size_t{2} << 20;

std::size_t rounded(std::size_t size)
{
  return (size + k_huge - 1) & ~(k_huge - 1);
}

} // namespace

void* map_huge(std::size_t size)
{
  // Map one huge page more than needed and keep the aligned part: madvise works on whole
  // 2 MiB pages only.
  const std::size_t length = rounded(size);
  void* raw = ::mmap(nullptr, length + k_huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    throw std::bad_alloc();
  }
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const auto aligned = (start + k_huge - 1) & ~(k_huge - 1);
  if (aligned > start) {
    ::munmap(raw, aligned - start);
  }
  if (const auto tail = start + length + k_huge - (aligned + length); tail > 0) {
    ::munmap(reinterpret_cast<void*>(aligned + length), tail);
  }
  ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void unmap_huge(void* p, std::size_t size)
{
  ::munmap(p, rounded(size));
}

Arena::~Arena()
{
  for (const auto& [p, size] : m_chunks) {
    unmap_huge(p, size);
  }
}

void* Arena::allocate(std::size_t size, std::size_t align)
{
  auto at = (m_next + align - 1) & ~(align - 1);
  if (at + size > m_end) {
    const std::size_t chunk = size > k_chunk / 4 ? size : k_chunk;
    void* p = map_huge(chunk);
    m_chunks.emplace_back(p, chunk);
    if (chunk != k_chunk) {
      return p; // a large block of its own; the current chunk goes on
    }
    m_next = reinterpret_cast<std::uintptr_t>(p);
    m_end = m_next + chunk;
    at = m_next;
  }
  m_next = at + size;
  return reinterpret_cast<void*>(at);
}

} // namespace zl::util
