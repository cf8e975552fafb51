// Header-only conveniences for backend authors. Compiled into the module; nothing here crosses
// the ABI (backend_abi.h is the contract). Functions never throw out of enumerate_devices: wrap
// the enumeration in guarded_enumerate<> (below), which catches everything.
//
// A typical backend: a vendor header aliases Device, ParseResult and LibraryResult; the
// management library is opened with Library; each tool runs through run_tool, its failures are
// worded by tool_failure, and the answer goes out through publish or fail. The descriptor starts
// from empty_descriptor() and its enumerate_devices is guarded_enumerate<your_enumerate>.
// sdk::Library uses dlopen: link ${CMAKE_DL_LIBS} where the C library does not provide it.
#pragma once

#include <zl/backend_abi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

// ---------------------------------------------------------------------------------------------
// Text

// Copies src into a fixed ABI buffer, truncating and always NUL-terminating.
template <size_t N>
inline void copy_field(char (&dst)[N], std::string_view src)
{
  const size_t n = src.size() < N - 1 ? src.size() : N - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

// Drops spaces, tabs and line ends at both ends: tools pad their columns.
inline std::string_view trim(std::string_view s)
{
  const char* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) {
    return {};
  }
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// Every piece between separators, empty ones included, so field counts stay exact.
inline std::vector<std::string_view> split(std::string_view s, std::string_view sep)
{
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (true) {
    const auto next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) {
      return out;
    }
    pos = next + sep.size();
  }
}

// The lines of a tool's output without their "\n" or "\r\n"; a final line end adds no empty line.
inline std::vector<std::string_view> lines(std::string_view s)
{
  std::vector<std::string_view> out;
  for (auto line : split(s, "\n")) {
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    out.push_back(line);
  }
  if (!out.empty() && out.back().empty()) {
    out.pop_back();
  }
  return out;
}

// std::string_view::starts_with is C++20; backends build as C++17.
inline bool starts_with(std::string_view s, std::string_view prefix)
{
  return s.substr(0, prefix.size()) == prefix;
}

// Parses a non-negative decimal integer that fills the whole (trimmed) string.
inline bool parse_u64(std::string_view s, uint64_t& out)
{
  s = trim(s);
  if (s.empty() || s.size() > 19) {
    return false;
  }
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

// A string a vendor library wrote into a fixed buffer: up to the first NUL (or the buffer's end,
// since not every library terminates a full buffer), trimmed.
inline std::string text_field(const char* buffer, size_t capacity)
{
  return std::string(trim(std::string_view(buffer, strnlen(buffer, capacity))));
}

// text_field for a char array, whose size is the capacity.
template <size_t N>
inline std::string text_field(const char (&buffer)[N])
{
  return text_field(buffer, N);
}

// ---------------------------------------------------------------------------------------------
// Reasons: one sentence a user reads when there are no devices or something failed.

// A line of tool output as a reason quotes it: in single quotes, cut at 160 bytes so that one
// runaway line cannot fill the 512-byte reason.
inline std::string quote(std::string_view line)
{
  constexpr size_t k_max = 160;
  if (line.size() > k_max) {
    return "'" + std::string(line.substr(0, k_max)) + "…'";
  }
  return "'" + std::string(line) + "'";
}

// "line 3 '<text>'": where a parser stopped, so the user can find it in the tool's output.
inline std::string quote_line(size_t number, std::string_view line)
{
  return "line " + std::to_string(number) + " " + quote(line);
}

// The first line with text, trimmed and quoted; empty when there is none. Tools that fail on
// standard output say why in their first line.
inline std::string first_line_quoted(std::string_view text)
{
  for (auto line : lines(text)) {
    if (!trim(line).empty()) {
      return quote(trim(line));
    }
  }
  return {};
}

// Joins the non-empty notes with "; ": reasons collect what each fallback step ran into.
inline std::string join_notes(std::initializer_list<std::string_view> notes)
{
  std::string out;
  for (auto note : notes) {
    if (!note.empty()) {
      out += (out.empty() ? "" : "; ") + std::string(note);
    }
  }
  return out;
}

// "<function> returned <rc>": a management-library call that did not succeed, named for a reason.
inline std::string call_failed(std::string_view function, int rc)
{
  return std::string(function) + " returned " + std::to_string(rc);
}

// ---------------------------------------------------------------------------------------------
// Vendor tools

// The result of running a vendor tool through the host.
struct ToolOutput
{
  zl_status status = ZL_OK;
  int exit_code = 0;
  std::string out;    // standard output
  std::string reason; // the host's sentence when status is not ZL_OK; when the tool exited
                      // non-zero, the last line it wrote to standard error (possibly empty)

  // Whether the tool ran to the end and exited 0: its output is worth parsing.
  bool ok() const { return status == ZL_OK && exit_code == 0; }

  // What to return when it is not ok(): the host's status, or ZL_ERR_TOOL_FAILED for a non-zero
  // exit; ZL_OK when it is ok().
  zl_status failure_status() const { return status != ZL_OK ? status : exit_code != 0 ? ZL_ERR_TOOL_FAILED : ZL_OK; }
};

// Runs argv through the host (no shell) and collects standard output; the host captures the
// exit code and, on failure, the reason.
inline ToolOutput run_tool(const zl_host_api* host, const std::vector<std::string>& argv, uint32_t timeout_ms = 20000)
{
  ToolOutput result;
  std::vector<const char*> args;
  for (const auto& a : argv) {
    args.push_back(a.c_str());
  }
  args.push_back(nullptr);
  char reason[512] = {};
  auto sink = [](void* ctx, const char* data, size_t size) { static_cast<std::string*>(ctx)->append(data, size); };
  result.status = host->run_program(host->ctx, args.data(), timeout_ms, sink, &result.out, &result.exit_code, reason,
                                    sizeof(reason));
  result.reason = reason;
  return result;
}

// Why a tool gave nothing to parse, as one clause; empty when output.ok(). "<tool> failed: <the
// host's sentence>" when it could not run to the end (not found, killed on timeout), else
// "<tool> exited with code <n>: <what it said>", where what it said is its last line on standard
// error, else its first line on standard output (nvidia-smi reports driver failures there), both
// quoted. `tool` is how the reason names the command ("amd-smi list").
inline std::string tool_failure(std::string_view tool, const ToolOutput& output)
{
  if (output.status != ZL_OK) {
    return std::string(tool) + " failed: " + output.reason;
  }
  if (output.exit_code == 0) {
    return {};
  }
  const auto on_stderr = trim(output.reason);
  std::string said = on_stderr.empty() ? first_line_quoted(output.out) : quote(on_stderr);
  if (said.empty()) {
    // Only standard output can be vouched for: the host passes on just stderr's last line.
    said = "(nothing on standard output)";
  }
  return std::string(tool) + " exited with code " + std::to_string(output.exit_code) + ": " + said;
}

// Why the host could not start a tool (status ZL_ERR_UNAVAILABLE): its sentence, or
// "<tool> not found on PATH" when it gave none.
inline std::string unavailable_reason(std::string_view tool, const ToolOutput& output)
{
  return output.reason.empty() ? std::string(tool) + " not found on PATH" : output.reason;
}

// ---------------------------------------------------------------------------------------------
// Devices

// One device as a backend collects it before publish copies it into the ABI's fixed buffers.
struct Device
{
  uint32_t index = 0;        // physical index in the vendor tool's numbering (ignores visibility)
  std::string uuid;          // stable identity, as the vendor spells it
  std::string name;          // product name
  uint64_t memory_bytes = 0; // total device memory; 0 when unknown
  std::string visibility_id; // what the descriptor's visibility_var takes to pin this device
};

// What a parser of tool output returns: the devices, or an error that quotes the offending line.
struct ParseResult
{
  std::vector<Device> devices;
  std::string error; // empty on success
  bool ok() const { return error.empty(); }
};

// Parses lines of "index, uuid, name, memory.total": the `--query-gpu=index,uuid,name,memory.total
// --format=csv,noheader` answer of nvidia-smi and the tools modelled on it. Names may contain
// spaces but not commas, so a plain comma split is exact. parse_memory reads the memory field
// (its unit differs between tools; `memory_kind` names what it expects, for the error). Empty
// output is an empty list; a line that is not four fields, an index that is not a number, or
// output that ends mid-line is an error quoting that line. visibility_id is left to the caller.
inline ParseResult parse_query_gpu_csv(std::string_view text, bool (*parse_memory)(std::string_view, uint64_t&),
                                       std::string_view memory_kind)
{
  ParseResult result;
  if (trim(text).empty()) {
    return result;
  }
  const auto all = lines(text);
  size_t number = 0;
  for (auto line : all) {
    ++number;
    if (trim(line).empty()) {
      continue;
    }
    // The header `--format=csv` prints without noheader ("index, uuid, name, memory.total [MiB]").
    if (result.devices.empty() && trim(split(line, ",").front()) == "index") {
      continue;
    }
    if (number == all.size() && text.back() != '\n') {
      result.error = "output ends mid-line at " + quote_line(number, line);
      return result;
    }
    const auto fields = split(line, ",");
    if (fields.size() != 4) {
      result.error = quote_line(number, line) + " has " + std::to_string(fields.size()) +
                     " fields, expected 4 (index, uuid, name, memory.total)";
      return result;
    }
    uint64_t index = 0;
    if (!parse_u64(fields[0], index) || index > std::numeric_limits<uint32_t>::max()) {
      result.error = quote_line(number, line) + ": index " + quote(trim(fields[0])) + " is not a number";
      return result;
    }
    Device d;
    d.index = static_cast<uint32_t>(index);
    d.uuid = std::string(trim(fields[1]));
    d.name = std::string(trim(fields[2]));
    if (d.uuid.empty() || d.name.empty()) {
      result.error = quote_line(number, line) + ": empty uuid or name";
      return result;
    }
    if (!parse_memory(fields[3], d.memory_bytes)) {
      result.error = quote_line(number, line) + ": memory.total " + quote(trim(fields[3])) + " is not a " +
                     std::string(memory_kind);
      return result;
    }
    result.devices.push_back(std::move(d));
  }
  return result;
}

// Fills out->reason and returns ZL_OK with no devices: "no devices, because …".
inline zl_status no_devices(zl_enumeration* out, std::string_view why)
{
  out->count = 0;
  copy_field(out->reason, why);
  return ZL_OK;
}

// The answer: copies what fits of `devices` into the core's array, names the source, and keeps
// `note` (what an earlier step ran into) as the reason. No devices is an answer too, ZL_OK with
// "<source> lists no <kind>" and the note as the reason.
inline zl_status publish(zl_enumeration* out, const std::vector<Device>& devices, std::string_view source,
                         std::string_view note, std::string_view kind = "device")
{
  out->count = static_cast<uint32_t>(devices.size());
  copy_field(out->source, source);
  const size_t n = devices.size() < out->capacity ? devices.size() : out->capacity;
  for (size_t i = 0; i < n; ++i) {
    zl_device_info& dev = out->devices[i];
    dev = zl_device_info{};
    dev.index = devices[i].index;
    dev.memory_bytes = devices[i].memory_bytes;
    copy_field(dev.uuid, devices[i].uuid);
    copy_field(dev.name, devices[i].name);
    copy_field(dev.visibility_id, devices[i].visibility_id);
  }
  if (devices.empty()) {
    return no_devices(out, join_notes({std::string(source) + " lists no " + std::string(kind), note}));
  }
  copy_field(out->reason, note);
  return ZL_OK;
}

// The answer when enumeration failed: no devices, `why` as the reason, `status` returned.
inline zl_status fail(zl_enumeration* out, zl_status status, std::string_view why)
{
  out->count = 0;
  copy_field(out->reason, why);
  return status;
}

// ---------------------------------------------------------------------------------------------
// Management libraries

// What the management library answered; a tool is the fallback unless state is ok.
struct LibraryResult
{
  enum class State {
    absent, // the library could not be opened: detail has the dlerror() texts
    failed, // opened, but a symbol was missing or a call failed: detail says which
    ok,     // devices holds the answer (possibly none)
    skipped // not tried: detail says why
  };
  State state = State::absent;
  std::string detail;
  std::vector<Device> devices;
};

// The library step of enumerate(); injectable, so tests can exercise every fallback.
using LibraryProbe = LibraryResult (*)();

// A dlopen handle: the first of the candidate names that opens, closed on scope exit. Vendor
// libraries are opened at run time so that a backend builds without the vendor's SDK and loads
// on machines without the driver.
class Library
{
public:
  explicit Library(std::initializer_list<const char*> sonames)
  {
    for (const char* soname : sonames) {
      handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
      if (handle_ != nullptr) {
        soname_ = soname;
        return;
      }
      const char* err = dlerror();
      error_ += (error_.empty() ? "" : "; ") + std::string(err != nullptr ? err : soname);
    }
  }
  ~Library()
  {
    if (handle_ != nullptr) {
      dlclose(handle_);
    }
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& soname() const { return soname_; } // the name that opened
  const std::string& error() const { return error_; }   // the dlerror() texts, when none opened

  // Looks a function up; records the first missing one, so one check after all binds suffices.
  // Finds nothing when no name opened (a null handle would search the whole process).
  template <typename Fn>
  void bind(const char* name, Fn& fn)
  {
    void* sym = handle_ != nullptr ? dlsym(handle_, name) : nullptr;
    fn = reinterpret_cast<Fn>(sym);
    if (sym == nullptr && missing_.empty()) {
      missing_ = name;
    }
  }
  const std::string& missing() const { return missing_; } // the first name bind() did not find

  // bind() for a function a library has under one of several names (a current one, then the
  // compatibility names of older releases): the first found wins and is returned; when none is,
  // the missing name recorded is "<a> or <b>" and "" is returned.
  template <typename Fn>
  std::string bind_first(std::initializer_list<const char*> names, Fn& fn)
  {
    std::string all;
    for (const char* name : names) {
      void* sym = handle_ != nullptr ? dlsym(handle_, name) : nullptr;
      if (sym != nullptr) {
        fn = reinterpret_cast<Fn>(sym);
        return name;
      }
      all += (all.empty() ? "" : " or ") + std::string(name);
    }
    fn = nullptr;
    if (missing_.empty()) {
      missing_ = all;
    }
    return {};
  }

  // Whether the library opened and every bind() so far found its function. When not, `result`
  // becomes the library step's answer: absent with the dlerror() texts, or failed with
  // "<soname> has no <function>". Call it once, after the binds a query cannot do without.
  bool usable(LibraryResult& result) const
  {
    if (handle_ == nullptr) {
      result.state = LibraryResult::State::absent;
      result.detail = error_;
      return false;
    }
    if (!missing_.empty()) {
      result.state = LibraryResult::State::failed;
      result.detail = soname_ + " has no " + missing_;
      return false;
    }
    return true;
  }

private:
  void* handle_ = nullptr;
  std::string soname_;
  std::string error_;
  std::string missing_;
};

// What the library step ran into, for the reason of the fallback: "<soname> not loadable
// (<dlerror>)", "<api> failed (<detail>)" or "<api> skipped because <detail>"; empty when ok.
inline std::string library_note(const LibraryResult& lib, std::string_view soname, std::string_view api)
{
  switch (lib.state) {
  case LibraryResult::State::absent:
    return std::string(soname) + " not loadable (" + lib.detail + ")";
  case LibraryResult::State::failed:
    return std::string(api) + " failed (" + lib.detail + ")";
  case LibraryResult::State::skipped:
    return std::string(api) + " skipped because " + lib.detail;
  case LibraryResult::State::ok:
    break;
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// The descriptor

// The empty string list, for descriptor fields that list nothing.
inline constexpr const char* k_no_strings[] = {nullptr};

// A descriptor of this ABI version with every list empty and every optional string "": set
// name, version, description, flaggems_vendor, torch_device and enumerate_devices (the loader
// refuses a module that leaves one NULL), then whatever else applies.
inline zl_backend_descriptor empty_descriptor()
{
  zl_backend_descriptor d{};
  d.abi_major = ZL_ABI_MAJOR;
  d.abi_minor = ZL_ABI_MINOR;
  d.struct_size = sizeof(zl_backend_descriptor);
  d.aliases = k_no_strings;
  d.torch_module = "";
  d.visibility_var = "";
  d.visibility_unset = k_no_strings;
  d.graph_class = "";
  d.capture = {k_no_strings, k_no_strings, k_no_strings};
  d.capture_deny_ops = k_no_strings;
  d.compat_rules = nullptr;
  d.compat_rule_count = 0;
  d.flagtree_token = "";
  return d;
}

// An enumerate_devices for the descriptor: runs Enumerate and turns any exception into
// ZL_ERR_INTERNAL with no devices and a reason, since nothing may be thrown across the ABI.
template <zl_status (*Enumerate)(const zl_host_api*, zl_enumeration*)>
zl_status guarded_enumerate(const zl_host_api* host, zl_enumeration* out) noexcept
{
  try {
    return Enumerate(host, out);
  } catch (const std::exception& e) {
    // Nothing here allocates: the exception may well be std::bad_alloc.
    out->count = 0;
    std::snprintf(out->reason, sizeof(out->reason), "internal error while listing devices: %s", e.what());
    return ZL_ERR_INTERNAL;
  } catch (...) {
    out->count = 0;
    copy_field(out->reason, "internal error while listing devices (an exception of unknown type)");
    return ZL_ERR_INTERNAL;
  }
}

} // namespace zl::sdk
