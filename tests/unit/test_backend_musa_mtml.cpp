// The MTML query over an injected API (issue 10.23): every mtmlDeviceInitMemory is paired with
// mtmlDeviceFreeMemory, on success and on failure, and a library without the (deprecated) free
// function still answers.
#include "musa_devices.hpp"

#include <doctest/doctest.h>

#include <cstring>

using namespace zl::backend_musa;

namespace {

// A fake MTML with two devices; the memory objects it hands out are counted.
int g_memory_live = 0;
int g_memory_freed = 0;
bool g_total_fails = false;
int g_library = 0;
int g_devices[2] = {};
int g_memory[2] = {};

mtml_return fake_init(void** lib)
{
  *lib = &g_library;
  return 0;
}
mtml_return fake_shutdown(void*)
{
  return 0;
}
mtml_return fake_count(const void*, unsigned* n)
{
  *n = 2;
  return 0;
}
mtml_return fake_by_index(const void*, unsigned i, void** dev)
{
  *dev = &g_devices[i];
  return 0;
}
mtml_return fake_uuid(const void* dev, char* out, unsigned size)
{
  std::snprintf(out, size, "uuid-%d", dev == &g_devices[0] ? 0 : 1);
  return 0;
}
mtml_return fake_name(const void*, char* out, unsigned size)
{
  std::snprintf(out, size, "MTT S4000");
  return 0;
}
mtml_return fake_init_memory(const void* dev, void** mem)
{
  ++g_memory_live;
  *mem = dev == &g_devices[0] ? &g_memory[0] : &g_memory[1];
  return 0;
}
mtml_return fake_total(const void*, unsigned long long* total)
{
  *total = 48ULL << 30;
  return g_total_fails ? 7 : 0;
}
mtml_return fake_free_memory(void*)
{
  --g_memory_live;
  ++g_memory_freed;
  return 0;
}

MtmlApi fake_api()
{
  g_memory_live = g_memory_freed = 0;
  g_total_fails = false;
  MtmlApi api;
  api.init = &fake_init;
  api.shutdown = &fake_shutdown;
  api.count = &fake_count;
  api.by_index = &fake_by_index;
  api.get_uuid = &fake_uuid;
  api.get_name = &fake_name;
  api.init_memory = &fake_init_memory;
  api.get_total = &fake_total;
  api.free_memory = &fake_free_memory;
  return api;
}

} // namespace

TEST_CASE("zl::backend_musa::query_mtml_with")
{
  SUBCASE("each memory object is freed")
  {
    const auto r = query_mtml_with(fake_api());
    REQUIRE(r.state == LibraryResult::State::ok);
    REQUIRE(r.devices.size() == 2);
    CHECK(r.devices[1].uuid == "uuid-1");
    CHECK(r.devices[1].memory_bytes == (48ULL << 30));
    CHECK(g_memory_freed == 2);
    CHECK(g_memory_live == 0);
  }
  SUBCASE("freed on failure too, and the failing call is named")
  {
    auto api = fake_api();
    g_total_fails = true;
    const auto r = query_mtml_with(api);
    CHECK(r.state == LibraryResult::State::failed);
    CHECK(r.detail == "mtmlMemoryGetTotal returned 7 for device 0");
    CHECK(g_memory_live == 0);
  }
  SUBCASE("a library without mtmlDeviceFreeMemory still answers")
  {
    auto api = fake_api();
    api.free_memory = nullptr;
    const auto r = query_mtml_with(api);
    CHECK(r.state == LibraryResult::State::ok);
    CHECK(r.devices.size() == 2);
  }
  SUBCASE("a required function missing from the API is named, never called")
  {
    auto api = fake_api();
    api.get_total = nullptr;
    const auto r = query_mtml_with(api);
    CHECK(r.state == LibraryResult::State::failed);
    CHECK(r.detail == "MTML has no mtmlMemoryGetTotal");
    CHECK(g_memory_live == 0);
  }
}
