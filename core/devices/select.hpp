// Which of a backend's devices zl uses: --device for zl run, --devices for zl batch and zl sweep.
// Only devices the inherited visibility mask leaves visible are candidates.
#pragma once

#include "loader/module.hpp"

#include <optional>
#include <string>
#include <vector>

namespace zl::devices {

// The devices of an enumeration the inherited mask leaves visible, in enumeration order.
std::vector<loader::Device> visible(const loader::Enumeration& e);

// One device for zl run: `wanted` is an index or a UUID, empty for the first visible device.
// Refuses a device the inherited mask hides (naming the mask) and a backend with none visible.
loader::Device choose_one(const loader::Module& backend, const std::string& wanted);

// The devices of a --devices list (`option` names it in messages): nullopt or "all" for every
// visible device; otherwise indices and UUIDs separated by commas. Refuses an empty list or entry,
// a device the inherited mask hides, and one device named twice (by index and by UUID alike): two
// workers on one device would measure each other.
std::vector<loader::Device> choose_list(const loader::Module& backend, const std::optional<std::string>& wanted,
                                        const std::string& option);

} // namespace zl::devices
