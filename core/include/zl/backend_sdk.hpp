// The backend SDK: header-only conveniences for backend authors, compiled into the module. Nothing
// here crosses the ABI (backend_abi.h is the contract). This header includes them all; a source
// may include just the ones it uses:
//
//   zl/sdk/text.hpp        copy_field, trim, split, lines, parse_u64, text_field
//   zl/sdk/reason.hpp      quote, quote_line, join_notes, call_failed: the words of a reason
//   zl/sdk/tool.hpp        run_tool (an SMI tool through the host, no shell), tool_failure
//   zl/sdk/device.hpp      Device, ParseResult, parse_query_gpu_csv, publish, fail, no_devices
//   zl/sdk/library.hpp     Library (a vendor library through dlopen), LibraryResult, library_note
//   zl/sdk/descriptor.hpp  empty_descriptor, guarded_enumerate, ZL_BACKEND_ENTRY
//   zl/sdk/visibility.hpp  read_list_mask, guarded_filter: the inherited visibility mask
//   zl/sdk/telemetry.hpp   Telemetry, publish_telemetry, guarded_telemetry: a device's state now
//
// A typical backend: a vendor header aliases Device, ParseResult and LibraryResult; the
// management library is opened with Library; each tool runs through run_tool, its failures are
// worded by tool_failure, and the answer goes out through publish or fail. The descriptor starts
// from empty_descriptor() and its enumerate_devices is guarded_enumerate<your_enumerate>, which
// catches everything: nothing may be thrown out of enumerate_devices (read_telemetry likewise is
// guarded_telemetry<your_read>). ZL_BACKEND_ENTRY exports it.
// sdk::Library uses dlopen: link ${CMAKE_DL_LIBS} where the C library does not provide it.
#pragma once

#include <zl/backend_abi.h>
#include <zl/sdk/descriptor.hpp>
#include <zl/sdk/device.hpp>
#include <zl/sdk/library.hpp>
#include <zl/sdk/reason.hpp>
#include <zl/sdk/telemetry.hpp>
#include <zl/sdk/text.hpp>
#include <zl/sdk/tool.hpp>
#include <zl/sdk/visibility.hpp>
