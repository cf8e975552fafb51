#include "loader/module.hpp"

#include "host/host_api.hpp"
#include "loader/elf_probe.hpp"
#include "util/string.hpp"

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

namespace zl::loader {

namespace {

// realpath(3): Boost's canonical needs the working folder, which may be gone.
std::string real_path(const std::string& path)
{
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
}

bool trusted_owner(uid_t uid)
{
  return uid == 0 || uid == ::geteuid();
}

// One file or folder on the way from the module to the root. child is the entry below it (the
// module or the next folder), for the sticky-bit rule.
std::optional<std::string> check_entry(const char* what, const std::string& path, const struct stat& st,
                                       const struct stat* child)
{
  if (!trusted_owner(st.st_uid)) {
    return fmt::format("refused: the {} {} belongs to user {}, neither you nor root, so that user could replace "
                       "the code zl runs; use a module in a folder that you or root own",
                       what, util::printable(path), st.st_uid);
  }
  const bool group = (st.st_mode & S_IWGRP) != 0;
  const bool others = (st.st_mode & S_IWOTH) != 0;
  // A sticky folder (like /tmp) lets others add entries but not rename or remove theirs: it is
  // safe for an entry that you or root own.
  const bool sticky_safe = child != nullptr && (st.st_mode & S_ISVTX) != 0 && trusted_owner(child->st_uid);
  if ((group || others) && !sticky_safe) {
    return fmt::format("refused: the {} {} is writable by {} (mode {:04o}), so someone else could replace the "
                       "code zl runs; fix with: chmod go-w {}",
                       what, util::printable(path),
                       group && others ? "group and others"
                       : group         ? "its group"
                                       : "others",
                       st.st_mode & 07777, util::printable(path));
  }
  return std::nullopt;
}

// The file and every folder above it, up to the root. A link as the file is checked for its
// owner only: its own mode means nothing, and where it leads is checked on its own.
std::optional<std::string> check_chain(const boost::filesystem::path& file)
{
  struct stat child
  {
  };
  bool first = true;
  for (auto at = file;; at = at.parent_path()) {
    struct stat st
    {
    };
    if (::lstat(at.c_str(), &st) != 0) {
      return fmt::format("cannot stat {}: {}", util::printable(at.string()), std::strerror(errno));
    }
    if (first && S_ISLNK(st.st_mode)) {
      if (!trusted_owner(st.st_uid)) {
        return check_entry("link", at.string(), st, nullptr);
      }
    } else if (auto why = check_entry(first ? "file" : "folder", at.string(), st, first ? nullptr : &child)) {
      return why;
    }
    if (!at.has_parent_path() || at == at.root_path()) {
      return std::nullopt;
    }
    child = st;
    first = false;
  }
}

// A module anyone else can rewrite would run with the user's rights: refuse it. Both the path
// found in the search folder and the file it resolves to (a link may lead elsewhere) are
// checked, each with every folder above it, as the Vulkan and OpenCL loaders do.
std::optional<std::string> check_permissions(const std::string& path)
{
  struct stat st
  {
  };
  if (::stat(path.c_str(), &st) != 0) {
    return fmt::format("cannot stat {}: {}", util::printable(path), std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return fmt::format("is not a regular file (mode {:06o}); a backend module is a shared object file", st.st_mode);
  }
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return fmt::format("cannot resolve {}: {}", util::printable(path), std::strerror(errno));
  }
  if (auto why = check_chain(path)) {
    return why;
  }
  return path == resolved ? std::nullopt : check_chain(resolved);
}

// Boost.DLL wraps dlerror as "... (dlerror system message: TEXT): ..."; keep TEXT.
std::string dlerror_text(const std::string& what)
{
  static const std::string marker = "dlerror system message: ";
  const auto start = what.find(marker);
  if (start == std::string::npos) {
    return what;
  }
  auto text = what.substr(start + marker.size());
  const auto end = text.rfind(')');
  return end == std::string::npos ? text : text.substr(0, end);
}

std::string explain_dlopen_failure(const std::string& path, const std::string& dlerror)
{
  static const std::regex missing(R"(([^\s:]+): cannot open shared object file)");
  static const std::regex undefined(R"(undefined symbol: ([^\s,]+))");
  std::smatch m;
  if (std::regex_search(dlerror, m, missing) && m[1].str() != path) {
    return fmt::format("needs {}, which the dynamic loader cannot find ({}); install the package that provides "
                       "it or add its folder to LD_LIBRARY_PATH (`ldd {}` lists every missing library)",
                       m[1].str(), dlerror, path);
  }
  if (std::regex_search(dlerror, m, undefined)) {
    return fmt::format("cannot be loaded: undefined symbol {} ({}); it was linked against another version of a "
                       "library it uses",
                       m[1].str(), dlerror);
  }
  return fmt::format("cannot be loaded: {}", dlerror);
}

// The generic reading of a mask for a module without filter_visible (ABI 1.0): a comma list of
// indices, UUIDs or visibility_ids, read up to the first entry that names no device; each device
// is pinned by the entry that named it, so the child's mask is a subset of the inherited one.
void generic_filter(const char* var, const char* value, Enumeration& e)
{
  e.masked = true;
  e.mask = fmt::format("{}={}", var, value);
  for (auto& d : e.devices) {
    d.visible = false;
  }
  const auto entries = util::split(value, ',', false);
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto entry = std::string(util::trim(entries[i]));
    const auto it = std::find_if(e.devices.begin(), e.devices.end(), [&](const Device& d) {
      return !entry.empty() && (std::to_string(d.index) == entry || d.uuid == entry || d.visibility_id == entry);
    });
    if (it == e.devices.end()) {
      if (!(entries.size() == 1 && entry.empty())) {
        e.mask_note = fmt::format("{} entry {} '{}' names no device; zl reads no further (the backend does not "
                                  "say how its runtime reads the variable)",
                                  var, i + 1, entry);
      }
      break;
    }
    if (!it->visible) {
      it->visible = true;
      it->pin = entry;
    }
  }
  if (util::trim(value).empty()) {
    e.mask_note = fmt::format("{} is set but empty, which hides every device", var);
  }
}

// The peak table (ABI 1.3): an older module's copy holds zeros there, which pass.
std::optional<std::string> check_peaks(const zl_backend_descriptor& d)
{
  if (d.peak_count > 0 && d.peaks == nullptr) {
    return std::string("declares spec peaks but peaks is NULL");
  }
  for (size_t i = 0; i < d.peak_count; ++i) {
    const auto& p = d.peaks[i];
    if (p.device_name == nullptr || p.sku == nullptr || p.source == nullptr) {
      return fmt::format("spec peak {} has a NULL device_name, sku or source", i);
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_strings(const zl_backend_descriptor& d)
{
  const std::pair<const char*, const char*> fields[] = {{"name", d.name},
                                                        {"version", d.version},
                                                        {"description", d.description},
                                                        {"flaggems_vendor", d.flaggems_vendor},
                                                        {"torch_module", d.torch_module},
                                                        {"torch_device", d.torch_device},
                                                        {"visibility_var", d.visibility_var},
                                                        {"graph_class", d.graph_class},
                                                        {"flagtree_token", d.flagtree_token}};
  for (const auto& [field, value] : fields) {
    if (value == nullptr) {
      return fmt::format("descriptor field {} is NULL (use \"\" for none)", field);
    }
  }
  if (d.enumerate_devices == nullptr) {
    return std::string("descriptor field enumerate_devices is NULL");
  }
  if (!util::is_identifier(d.name)) {
    return fmt::format("calls itself '{}', which is not a backend name ([a-z0-9_]+)", d.name);
  }
  for (const auto& alias : string_list(d.aliases)) {
    if (!util::is_identifier(alias)) {
      return fmt::format("declares the alias '{}', which is not a backend name ([a-z0-9_]+)", alias);
    }
  }
  if (d.compat_rule_count > 0 && d.compat_rules == nullptr) {
    return std::string("declares compat rules but compat_rules is NULL");
  }
  return check_peaks(d);
}

} // namespace

const char* to_string(ModuleState state)
{
  switch (state) {
  case ModuleState::loaded:
    return "loaded";
  case ModuleState::failed:
    return "failed";
  case ModuleState::shadowed:
    return "shadowed";
  }
  return "?";
}

std::vector<std::string> capability_names(uint64_t capabilities)
{
  const std::pair<uint64_t, const char*> known[] = {{ZL_CAP_GRAPH_CAPTURE, "graph_capture"},
                                                    {ZL_CAP_PROFILER_TIMER, "profiler_timer"},
                                                    {ZL_CAP_HOST_FALLBACK, "host_fallback"}};
  std::vector<std::string> out;
  for (unsigned bit = 0; bit < 64; ++bit) {
    const uint64_t flag = uint64_t{1} << bit;
    if ((capabilities & flag) == 0) {
      continue;
    }
    const auto it = std::find_if(std::begin(known), std::end(known), [&](const auto& k) { return k.first == flag; });
    out.push_back(it != std::end(known) ? it->second : fmt::format("bit {}", bit));
  }
  return out;
}

std::vector<std::string> string_list(const char* const* list)
{
  std::vector<std::string> out;
  for (auto p = list; p != nullptr && *p != nullptr; ++p) {
    out.emplace_back(*p);
  }
  return out;
}

std::string Module::name() const
{
  return state == ModuleState::loaded ? desc.name : file_name;
}

std::vector<std::string> Module::aliases() const
{
  return state == ModuleState::loaded ? string_list(desc.aliases) : std::vector<std::string>{};
}

std::string Module::abi_version() const
{
  return state == ModuleState::loaded ? fmt::format("{}.{}", desc.abi_major, desc.abi_minor) : "";
}

Module load_module(const std::string& path, const std::string& origin)
{
  Module module;
  module.path = path;
  module.folder_origin = origin;
  const auto base = boost::filesystem::path(path).filename().string();
  module.file_name = base.substr(std::strlen("libzl_backend_"), base.size() - std::strlen("libzl_backend_") - 3);
  auto fail = [&](const std::string& why) {
    module.desc = {}; // its strings die with the library
    module.state = ModuleState::failed;
    module.error = fmt::format("{}: {}", path, why);
    return module;
  };

  if (auto why = check_permissions(path)) {
    return fail(*why);
  }
  if (auto why = check_elf(path)) {
    return fail(*why);
  }
  auto library = std::make_shared<boost::dll::shared_library>();
  try {
    library->load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return fail(explain_dlopen_failure(path, dlerror_text(e.what())));
  }
  if (!library->has(ZL_BACKEND_ENTRY_POINT)) {
    return fail(fmt::format("does not export {}, so it is not a zl backend (build it with zl_add_backend() "
                            "from find_package(zl))",
                            ZL_BACKEND_ENTRY_POINT));
  }
  auto& entry = library->get<const zl_backend_descriptor*()>(ZL_BACKEND_ENTRY_POINT);
  // A symbol found in a dependency instead of the module itself is not this module's entry.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&entry), &info) != 0 && info.dli_fname != nullptr &&
      real_path(info.dli_fname) != real_path(path)) {
    return fail(fmt::format("{} resolves from {}, not from the module itself", ZL_BACKEND_ENTRY_POINT, info.dli_fname));
  }
  const zl_backend_descriptor* d = entry();
  if (d == nullptr) {
    return fail(fmt::format("{} returned no descriptor", ZL_BACKEND_ENTRY_POINT));
  }
  if (d->abi_major != ZL_ABI_MAJOR) {
    return fail(fmt::format("speaks backend ABI {}.{}, but this zl speaks {}.{}; the major versions must match: "
                            "rebuild the module against this zl's SDK, or use a zl that speaks {}.x",
                            d->abi_major, d->abi_minor, ZL_ABI_MAJOR, ZL_ABI_MINOR, d->abi_major));
  }
  if (d->struct_size < ZL_DESCRIPTOR_MIN_SIZE_1_0) {
    return fail(fmt::format("reports a descriptor of {} bytes, smaller than the {} bytes ABI {}.0 requires; the "
                            "module was built against a damaged or pre-release header",
                            d->struct_size, ZL_DESCRIPTOR_MIN_SIZE_1_0, ZL_ABI_MAJOR));
  }
  // Copy what both sides know: a newer minor's extra fields are ignored, an older one's absent
  // fields stay zero.
  std::memcpy(&module.desc, d, std::min<size_t>(d->struct_size, sizeof(zl_backend_descriptor)));
  if (auto why = check_strings(module.desc)) {
    return fail(*why);
  }
  if (module.file_name != module.desc.name) {
    return fail(fmt::format("calls itself '{}', but its file name says '{}'; the two must agree", module.desc.name,
                            module.file_name));
  }
  // Vendor runtimes start threads and register exit handlers: never unload a module.
  ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  module.m_library = std::move(library);
  module.state = ModuleState::loaded;
  return module;
}

bool Module::has_peaks() const
{
  return state == ModuleState::loaded &&
         desc.struct_size >= offsetof(zl_backend_descriptor, peak_count) + sizeof(desc.peak_count);
}

devices::PeakTable Module::peaks() const
{
  return has_peaks() ? devices::PeakTable{desc.peaks, desc.peak_count} : devices::PeakTable{};
}

Enumeration Module::enumerate() const
{
  Enumeration result;
  if (state != ModuleState::loaded) {
    result.status = ZL_ERR_UNAVAILABLE;
    result.reason = error;
    return result;
  }
  constexpr uint32_t capacity = 256;
  std::vector<zl_device_info> devices(capacity);
  zl_enumeration out{};
  out.struct_size = sizeof(zl_enumeration);
  out.capacity = capacity;
  out.devices = devices.data();
  const host::HostApi host;
  result.status = desc.enumerate_devices(host.get(), &out);
  out.source[sizeof(out.source) - 1] = '\0';
  out.reason[sizeof(out.reason) - 1] = '\0';
  result.source = out.source;
  result.reason = out.reason;
  for (uint32_t i = 0; i < std::min(out.count, capacity); ++i) {
    auto& d = devices[i];
    d.uuid[sizeof(d.uuid) - 1] = d.name[sizeof(d.name) - 1] = d.visibility_id[sizeof(d.visibility_id) - 1] = '\0';
    result.devices.push_back(Device{d.index, d.uuid, d.name, d.memory_bytes, d.visibility_id, true, d.visibility_id});
  }
  if (result.status != ZL_OK && result.reason.empty()) {
    result.reason = fmt::format("{} reported status {} without a reason", path, static_cast<int>(result.status));
  }
  if (result.status == ZL_OK) {
    apply_mask(host, devices.data(), std::min(out.count, capacity), result);
  }
  return result;
}

Module::Mask Module::filter(const host::HostApi& host, const zl_device_info* devices, uint32_t count) const
{
  Mask mask;
  if (desc.filter_visible == nullptr) {
    return mask;
  }
  mask.visible.resize(std::max<uint32_t>(count, 1));
  zl_visibility out{};
  out.struct_size = sizeof(zl_visibility);
  out.capacity = static_cast<uint32_t>(mask.visible.size());
  out.visible = mask.visible.data();
  mask.status = desc.filter_visible(host.get(), devices, count, &out);
  out.mask[sizeof(out.mask) - 1] = out.note[sizeof(out.note) - 1] = '\0';
  mask.masked = out.masked != 0;
  mask.text = out.mask;
  mask.note = out.note;
  mask.visible.resize(std::min(out.count, out.capacity));
  return mask;
}

void Module::apply_mask(const host::HostApi& host, const zl_device_info* devices, uint32_t count, Enumeration& e) const
{
  // A module of ABI 1.0 has no filter_visible: the core's generic reading stands in.
  if (desc.filter_visible == nullptr) {
    if (*desc.visibility_var != '\0') {
      if (const char* value = std::getenv(desc.visibility_var); value != nullptr) {
        generic_filter(desc.visibility_var, value, e);
      }
    }
    return;
  }
  auto mask = filter(host, devices, count);
  if (mask.status != ZL_OK) {
    // Never widen: a mask the module could not read hides every device, and says why.
    mask.masked = true;
    mask.visible.clear();
    mask.note = fmt::format("the backend could not read the inherited mask: {}", mask.note);
  }
  e.masked = mask.masked;
  e.mask = mask.text;
  e.mask_note = mask.note;
  if (!mask.masked) {
    return;
  }
  for (auto& d : e.devices) {
    d.visible = false;
  }
  for (const auto& v : mask.visible) {
    if (v.device < e.devices.size() && !e.devices[v.device].visible) {
      auto& d = e.devices[v.device];
      d.visible = true;
      d.pin = std::string(v.pin, strnlen(v.pin, sizeof(v.pin)));
    }
  }
}

std::string Module::inherited_mask() const
{
  if (state != ModuleState::loaded) {
    return "";
  }
  if (desc.filter_visible == nullptr) {
    const char* value = *desc.visibility_var != '\0' ? std::getenv(desc.visibility_var) : nullptr;
    return value != nullptr ? fmt::format("{}={}", desc.visibility_var, value) : "";
  }
  // The mask's text does not depend on the devices: ask with none rather than enumerate again.
  const host::HostApi host;
  const auto mask = filter(host, nullptr, 0);
  return mask.masked ? mask.text : "";
}

} // namespace zl::loader
