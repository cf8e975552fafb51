// Management libraries: a vendor library opened with dlopen at run time, so that a backend builds
// without the vendor's SDK and loads on machines without the driver (zl/backend_sdk.hpp says how
// the SDK's headers fit together). dlopen: link ${CMAKE_DL_LIBS} where the C library lacks it.
#pragma once

#include <zl/sdk/device.hpp>

#include <dlfcn.h>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace zl::sdk {

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

} // namespace zl::sdk
