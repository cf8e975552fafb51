// Shared pieces of the commands' output: option parsing, aligned tables, JSON.
#pragma once

#include "app.hpp"

#include "util/json.hpp"
#include <boost/program_options.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace zl::cli {

namespace po = boost::program_options;

// Parses a command's own options. Adds -h/--help; when given, prints usage and the options and
// returns nullopt. Throws Error (exit 2) on anything it does not know. positional names options
// (declared in desc) that bare arguments fill in order; the last takes all that remain when
// its value type is a vector.
std::optional<po::variables_map> parse_options(const std::string& command, const std::string& usage,
                                               po::options_description& desc, const Args& args,
                                               const std::vector<std::string>& positional = {});

// What an option error says: e.what(), unless an argument holds one of boost's placeholders
// (%value%, %option%, …), which boost 1.74 substitutes into its message until none is left, so
// what() would never return; then a message naming that argument.
std::string option_error(const po::error& e, const Args& args);

// Prints rows under a header as left-aligned columns.
void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows);

} // namespace zl::cli
