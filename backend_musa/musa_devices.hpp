// Moore Threads device enumeration: MTML (libmtml.so, opened at run time) first, then
// mthreads-gmi's CSV query, then `mthreads-gmi -q` for drivers whose gmi has no CSV form.
// Facts and their sources: README.md in this folder.
#pragma once

#include <zl/backend_sdk.hpp>
#include <zl/sdk/visibility.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zl::backend_musa {

// The CSV query; without nounits, so memory.total carries its unit ("81920MiB").
inline const std::vector<std::string>& gmi_csv_argv()
{
  static const std::vector<std::string> argv = {"mthreads-gmi", "--query-gpu=index,uuid,name,memory.total",
                                                "--format=csv,noheader"};
  return argv;
}

// The full query, for gmi versions without --query-gpu.
inline const std::vector<std::string>& gmi_query_argv()
{
  static const std::vector<std::string> argv = {"mthreads-gmi", "-q"};
  return argv;
}

// index: gmi / MTML index, physical, not remapped by MUSA_VISIBLE_DEVICES; uuid: 8-4-4-4-12 hex,
// no "GPU-" prefix; name: "MTT S5000"; visibility_id: what MUSA_VISIBLE_DEVICES takes, the
// physical index.
using Device = sdk::Device;
using ParseResult = sdk::ParseResult;

// Parses `mthreads-gmi --query-gpu=index,uuid,name,memory.total --format=csv,noheader`.
ParseResult parse_gmi_csv(std::string_view text);

// Parses `mthreads-gmi -q`: blocks that start with `GPU<n>`, keys `Product Name` and `GPU UUID`,
// memory as `Total : <n>MiB` under a memory section. Tolerant of spacing around the colons.
ParseResult parse_gmi_query(std::string_view text);

// "81920MiB", "81920 MiB", "80 GiB", "81920" (MiB): bytes. False when it is not a size.
bool parse_memory(std::string_view value, uint64_t& bytes);

// What MTML answered (absent: neither libmtml.so nor libmtml.so.2 could be opened).
using LibraryResult = sdk::LibraryResult;

// MTML's functions, as query_mtml binds them (injectable, so tests can run the query without the
// library). MtmlReturn is a C enum (int), 0 is MTML_SUCCESS; MtmlLibrary, MtmlDevice and
// MtmlMemory are opaque, handled as void*. free_memory may be NULL (deprecated in newer MTML).
using mtml_return = int;
struct MtmlApi
{
  mtml_return (*init)(void**) = nullptr;
  mtml_return (*shutdown)(void*) = nullptr;
  mtml_return (*count)(const void*, unsigned*) = nullptr;
  mtml_return (*by_index)(const void*, unsigned, void**) = nullptr;
  mtml_return (*get_uuid)(const void*, char*, unsigned) = nullptr;
  mtml_return (*get_name)(const void*, char*, unsigned) = nullptr;
  mtml_return (*init_memory)(const void*, void**) = nullptr;
  mtml_return (*get_total)(const void*, unsigned long long*) = nullptr;
  mtml_return (*free_memory)(void*) = nullptr;
};

// The MTML query over `api`: every device's index, UUID, name and memory; each memory object
// initialised is freed again.
LibraryResult query_mtml_with(const MtmlApi& api);

// Opens libmtml.so (else libmtml.so.2) with dlopen and lists the devices through MTML.
LibraryResult query_mtml();

using LibraryProbe = sdk::LibraryProbe;

// enumerate() with the library step injectable, so tests can exercise every fallback.
zl_status enumerate_with(const zl_host_api* host, zl_enumeration* out, LibraryProbe probe);

// MTML, else the gmi CSV query, else `mthreads-gmi -q`.
zl_status enumerate(const zl_host_api* host, zl_enumeration* out);

// The MUSA_VISIBLE_DEVICES mask the process inherited. torch_musa documents indices only
// (docs/vendor-facts.md §2.2), the physical gmi/MTML numbering; each device is pinned by its own
// index, one of the mask's entries. How the MUSA runtime treats an entry it cannot read is not
// documented: zl reads no further there, as CUDA does, which can only narrow the mask.
sdk::Visibility filter_visible(const zl_host_api* host, const std::vector<Device>& devices);

// The spec-sheet peaks of the GPUs this backend lists (musa_peaks.cpp): the descriptor's peaks and
// peak_count (ABI 1.3). Internal to the module, as every symbol but its entry point.
const zl_peak* peaks();
size_t peak_count();

} // namespace zl::backend_musa
