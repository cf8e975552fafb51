// telemetry.jsonl: the device's state as zl read it around and during a run (run/telemetry.hpp),
// and the rows it says were timed on a slowed device.
#pragma once

#include "devices/reading.hpp"
#include "results/model.hpp"

#include <vector>

namespace zl::results::parse {

// Marks the rows of run timed while a reading said the device was throttled
// (devices::throttle_cause): a reading taken during the run whose time falls between the start of
// a row's first sample and the end of its last, torch's or FlagGems'. A row without samples has no
// time to judge it by and is never marked. Sets run.info.throttled_rows and throttle_cause.
void mark_throttled(Run& run, const std::vector<devices::Reading>& readings);

} // namespace zl::results::parse
