#include "devices/select.hpp"

#include "util/error.hpp"
#include "util/output.hpp"
#include "util/string.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace zl::devices {

namespace {

loader::Enumeration enumerate(const loader::Module& backend)
{
  auto e = backend.enumerate();
  if (e.devices.empty()) {
    throw Error(fmt::format("backend {} has no device to run on: {}", backend.name(),
                            e.reason.empty() ? "it found none" : e.reason));
  }
  if (visible(e).empty()) {
    throw Error(fmt::format("backend {} has {} device(s), but the inherited mask {} hides every one{}; unset it or "
                            "name a device it lists",
                            backend.name(), e.devices.size(), e.mask,
                            e.mask_note.empty() ? "" : " (" + e.mask_note + ")"));
  }
  if (!e.mask_note.empty()) {
    // The mask is read as the runtime reads it; where that drops entries, the user should know.
    util::out().say(fmt::format("zl: note: the inherited mask {}: {}\n", e.mask, e.mask_note));
  }
  return e;
}

std::string listing(const std::vector<loader::Device>& devices)
{
  std::vector<std::string> have;
  for (const auto& d : devices) {
    have.push_back(fmt::format("{} ({})", d.index, d.uuid));
  }
  return util::join(have, ", ");
}

// The device an entry names (index or UUID), visible or not; refuses one that names none.
const loader::Device& find(const loader::Module& backend, const loader::Enumeration& e, const std::string& wanted,
                           const std::string& option)
{
  const auto it = std::find_if(e.devices.begin(), e.devices.end(),
                               [&](const auto& d) { return std::to_string(d.index) == wanted || d.uuid == wanted; });
  if (it == e.devices.end()) {
    if (option == "--device") {
      throw Error(fmt::format("--device {}: backend {} has no device with that index or UUID; it has {}", wanted,
                              backend.name(), listing(visible(e))));
    }
    throw Error(fmt::format("{}: backend {} has no device '{}' (by index or UUID); it has {}", option, backend.name(),
                            wanted, listing(visible(e))));
  }
  if (!it->visible) {
    throw Error(fmt::format("{} {}: device {} ({}) is outside the visibility mask this process inherited, {}; zl "
                            "never widens it: choose one of {}, or change {}",
                            option, wanted, it->index, it->uuid, e.mask, listing(visible(e)),
                            backend.desc.visibility_var));
  }
  return *it;
}

} // namespace

std::vector<loader::Device> visible(const loader::Enumeration& e)
{
  std::vector<loader::Device> out;
  std::copy_if(e.devices.begin(), e.devices.end(), std::back_inserter(out), [](const auto& d) { return d.visible; });
  return out;
}

loader::Device choose_one(const loader::Module& backend, const std::string& wanted)
{
  const auto e = enumerate(backend);
  return wanted.empty() ? visible(e).front() : find(backend, e, wanted, "--device");
}

std::vector<loader::Device> choose_list(const loader::Module& backend, const std::optional<std::string>& wanted,
                                        const std::string& option)
{
  if (wanted && util::trim(*wanted).empty()) {
    throw Error(
        fmt::format("{} '{}' names no device; give indices or UUIDs separated by commas, or all", option, *wanted));
  }
  const auto entries = wanted ? util::split(*wanted, ',', false) : std::vector<std::string>{};
  for (const auto& entry : entries) {
    if (util::trim(entry).empty()) {
      throw Error(fmt::format("{} '{}' has an empty entry; give indices or UUIDs separated by commas, or all", option,
                              *wanted));
    }
  }
  const auto e = enumerate(backend);
  if (!wanted || util::trim(*wanted) == "all") {
    return visible(e);
  }
  std::vector<std::pair<std::string, loader::Device>> chosen;
  for (const auto& raw : entries) {
    const auto entry = std::string(util::trim(raw));
    const auto& d = find(backend, e, entry, option);
    const auto twice = std::find_if(chosen.begin(), chosen.end(), [&](const auto& c) {
      return c.second.index == d.index && c.second.uuid == d.uuid;
    });
    if (twice != chosen.end()) {
      throw Error(fmt::format("{}: device {} is listed twice ('{}' and '{}' are both device {}, {}); list each "
                              "device once, since two workers on one device would measure each other",
                              option, entry, twice->first, entry, d.index, d.uuid));
    }
    chosen.emplace_back(entry, d);
  }
  std::vector<loader::Device> out;
  for (auto& c : chosen) {
    out.push_back(std::move(c.second));
  }
  return out;
}

} // namespace zl::devices
