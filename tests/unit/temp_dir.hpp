// A folder under /tmp that lives as long as the test, and a way to put test modules in it.
#pragma once

#include <boost/filesystem.hpp>

#include <stdexcept>
#include <string>
#include <sys/stat.h>

namespace zl::test {

class TempDir
{
public:
  TempDir()
  {
    std::string pattern = (boost::filesystem::temp_directory_path() / "zl-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
    ::chmod(m_path.c_str(), 0755);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir()
  {
    boost::system::error_code ec;
    boost::filesystem::remove_all(m_path, ec);
  }
  const std::string& path() const { return m_path; }
  std::string operator/(const std::string& name) const { return m_path + "/" + name; }

private:
  std::string m_path;
};

// Copies the test module libzl_backend_<name>.so into dir (under the same or another name)
// and returns the copy's path.
inline std::string add_test_module(const TempDir& dir, const std::string& name, const std::string& as = "")
{
  auto target = dir / ("libzl_backend_" + (as.empty() ? name : as) + ".so");
  boost::filesystem::copy_file(std::string(ZL_BROKEN_MODULE_DIR) + "/libzl_backend_" + name + ".so", target,
                               boost::filesystem::copy_option::overwrite_if_exists);
  ::chmod(target.c_str(), 0755);
  return target;
}

} // namespace zl::test
