#include "util/memory.hpp"

#include <sys/mman.h>

namespace zl::util {

namespace {

constexpr std::size_t k_huge = std::size_t{2} << 20;

std::size_t rounded(std::size_t size)
{
  return (size + k_huge - 1) & ~(k_huge - 1);
}

// The bytes from p up to the next multiple of align (a power of two). Pointers are moved by
// this many bytes rather than rebuilt from integers, so they stay derived from the mapping.
std::size_t padding(const void* p, std::size_t align)
{
  return (align - (reinterpret_cast<std::uintptr_t>(p) & (align - 1))) & (align - 1);
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
  const std::size_t head = padding(raw, k_huge);
  char* const aligned = static_cast<char*>(raw) + head;
  if (head > 0) {
    ::munmap(raw, head);
  }
  if (const std::size_t tail = k_huge - head; tail > 0) {
    ::munmap(aligned + length, tail);
  }
  ::madvise(aligned, length, MADV_HUGEPAGE);
  return aligned;
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
  std::size_t pad = padding(m_next, align);
  if (pad + size > static_cast<std::size_t>(m_end - m_next)) {
    const std::size_t chunk = size > k_chunk / 4 ? size : k_chunk;
    void* p = map_huge(chunk);
    m_chunks.emplace_back(p, chunk);
    if (chunk != k_chunk) {
      return p; // a large block of its own; the current chunk goes on
    }
    m_next = static_cast<char*>(p);
    m_end = m_next + chunk;
    pad = 0; // chunks are 2 MiB aligned
  }
  char* const at = m_next + pad;
  m_next = at + size;
  return at;
}

} // namespace zl::util
