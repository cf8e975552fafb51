// Shared pieces of the commands' output: option parsing, aligned tables, JSON.
#pragma once

#include "app.hpp"

#include <boost/program_options.hpp>
#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace zl::cli {

namespace po = boost::program_options;

// Parses a command's own options. Adds -h/--help; when given, prints usage and the options and
// returns nullopt. Throws Error (exit 2) on anything it does not know.
std::optional<po::variables_map> parse_options(const std::string& command, const std::string& usage,
                                               po::options_description& desc, const Args& args);

// Prints rows under a header as left-aligned columns.
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

// Writes JSON to an ostream, pretty-printed, ending with a newline.
class Json
{
public:
  explicit Json(std::ostream& out);
  ~Json();
  rapidjson::PrettyWriter<rapidjson::OStreamWrapper>& w() { return m_writer; }
  void key(const std::string& k) { m_writer.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size())); }
  void str(const std::string& v) { m_writer.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size())); }
  void field(const std::string& k, const std::string& v) { key(k), str(v); }
  void strings(const std::string& k, const std::vector<std::string>& values);

private:
  std::ostream& m_out;
  rapidjson::OStreamWrapper m_stream;
  rapidjson::PrettyWriter<rapidjson::OStreamWrapper> m_writer;
};

} // namespace zl::cli
