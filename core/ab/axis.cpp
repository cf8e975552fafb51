#include "ab/axis.hpp"

#include "util/process.hpp"
#include "util/string.hpp"

#include <boost/filesystem.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace zl::ab {

namespace fs = boost::filesystem;

std::string default_axis(const std::string& flagtree_token)
{
  return flagtree_token.empty() ? "FLAGTREE_RLC_ENHANCE" : "FLAGTREE_" + flagtree_token + "_RLC_ENHANCE";
}

bool file_contains(const std::string& path, const std::string& needle)
{
  std::ifstream in(path, std::ios::binary);
  if (!in || needle.empty()) {
    return false;
  }
  // Chunks overlap by needle.size()-1 bytes so a name split across two reads is still seen.
  std::vector<char> buf(1 << 20);
  size_t carry = 0;
  while (in) {
    in.read(buf.data() + carry, static_cast<std::streamsize>(buf.size() - carry));
    const size_t n = carry + static_cast<size_t>(in.gcount());
    if (std::search(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), needle.begin(), needle.end()) !=
        buf.begin() + static_cast<std::ptrdiff_t>(n)) {
      return true;
    }
    carry = std::min(n, needle.size() - 1);
    std::memmove(buf.data(), buf.data() + n - carry, carry);
  }
  return false;
}

AxisProbe probe_axis(const std::string& python, const std::string& variable)
{
  AxisProbe probe;
  util::SpawnSpec spec;
  spec.argv = {python, "-c",
               "import importlib.util as u\n"
               "for n in ('triton', 'flagtree'):\n"
               "    s = u.find_spec(n)\n"
               "    if s and s.submodule_search_locations:\n"
               "        print(list(s.submodule_search_locations)[0])\n"};
  spec.timeout = std::chrono::seconds(60);
  std::string out;
  try {
    util::run(spec, [&](std::string_view s) { out.append(s); });
  } catch (const util::SpawnFailure&) {
    return probe;
  }
  for (const auto& dir : util::split(out, '\n')) {
    probe.searched.push_back(dir);
    boost::system::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const auto ext = it->path().extension().string();
      const auto name = it->path().filename().string();
      if (!fs::is_regular_file(it->path()) ||
          (ext != ".py" && ext != ".so" && name.find(".so.") == std::string::npos)) {
        continue;
      }
      ++probe.files_scanned;
      if (file_contains(it->path().string(), variable)) {
        probe.live = true;
        probe.found_in = it->path().string();
        return probe;
      }
    }
  }
  return probe;
}

} // namespace zl::ab
