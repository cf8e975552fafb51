// A results store made by another zl version (`zl summary --db FILE`, `zl batch --db FILE`): the
// input is the database file; it is opened (and migrated) as a store, read whole and summarized.
#include "fuzz_util.hpp"
#include "results/compare/summary.hpp"
#include "results/store/store.hpp"
#include "util/error.hpp"

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  static const std::string file = zl::fuzz::scratch() + "/results.sqlite";
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    ::unlink((file + suffix).c_str());
  }
  zl::fuzz::put_file(file, zl::fuzz::as_text(data, size));
  try {
    zl::results::store::Store store(file);
    store.set_report_stream(nullptr);
    zl::results::compare::summarize(store.load());
    store.expected_duration("cuda", "abs");
  } catch (const zl::Error&) {
  }
  return 0;
}
