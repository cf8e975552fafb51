// One way to spread work over the machine's cores: `work` runs on up to `threads` threads (0: the
// cores, at most 8), the calling thread among them, and each takes its jobs itself (a shared
// counter). The first exception any job left in `errors` is rethrown once all have ended.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace zl::util {

template <typename Work>
void run_workers(std::size_t jobs, unsigned threads, Work&& work, const std::vector<std::exception_ptr>& errors)
{
  const unsigned n = std::min<unsigned>(threads ? threads : std::clamp(std::thread::hardware_concurrency(), 1u, 8u),
                                        static_cast<unsigned>(std::max<std::size_t>(jobs, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) {
    pool.emplace_back(work);
  }
  work();
  for (auto& t : pool) {
    t.join();
  }
  for (const auto& e : errors) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
}

} // namespace zl::util
