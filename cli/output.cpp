#include "output.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace zl::cli {

std::string option_error(const po::error& e, const Args& args)
{
  for (const auto& arg : args) {
    for (const char* token : {"%value%", "%option%", "%prefix%", "%canonical_option%", "%original_token%"}) {
      if (arg.find(token) != std::string::npos) {
        return fmt::format("the argument '{}' is not accepted here (an option's value cannot hold {})", arg, token);
      }
    }
  }
  return e.what();
}

std::optional<po::variables_map> parse_options(const std::string& command, const std::string& usage,
                                               po::options_description& desc, const Args& args,
                                               const std::vector<std::string>& positional)
{
  desc.add_options()("help,h", "print this help");
  po::positional_options_description pos;
  for (size_t i = 0; i < positional.size(); ++i) {
    pos.add(positional[i].c_str(), i + 1 == positional.size() ? -1 : 1);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(fmt::format("zl {}: {}; `zl {} --help` lists its options", command, option_error(e, args), command));
  }
  if (vm.count("help")) {
    std::cout << "Usage: " << usage << "\n\n" << desc << "\n";
    return std::nullopt;
  }
  return vm;
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows)
{
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) {
      width[c] = std::max(width[c], c < row.size() ? row[c].size() : 0);
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < header.size(); ++c) {
      const auto& cell = c < cells.size() ? cells[c] : std::string();
      text += c + 1 < header.size() ? fmt::format("{:<{}}  ", cell, width[c]) : cell;
    }
    while (!text.empty() && text.back() == ' ') {
      text.pop_back();
    }
    out << text << "\n";
  };
  line(header);
  for (const auto& row : rows) {
    line(row);
  }
}

} // namespace zl::cli
