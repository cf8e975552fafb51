// Marker lines (`NAME key=value …`, docs/plan-file.md), one per line of the input. Differential:
// a value rapidjson writes as a JSON string reads back as the same bytes with read_json_string.
#include "fuzz_util.hpp"
#include "results/parse/markers.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto input = zl::fuzz::as_text(data, size);
  for (std::size_t start = 0; start <= input.size();) {
    const auto end = std::min(input.find('\n', start), input.size());
    const auto line = input.substr(start, end - start);
    const auto parsed = zl::results::parse::parse_marker(line);
    if (parsed.marker) {
      zl::results::parse::is_known_marker(parsed.marker->name);
    }
    zl::results::parse::printable_excerpt(line);
    start = end + 1;
  }
  // The round trip: only text rapidjson accepts as UTF-8 is written. Its validation reads a
  // sequence cut at the end past the length it is given (up to three bytes): pad with NULs.
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator,
                    rapidjson::kWriteValidateEncodingFlag>
      writer(buffer);
  const std::string value = std::string(input) + std::string(4, '\0');
  if (writer.String(value.c_str(), static_cast<rapidjson::SizeType>(input.size()))) {
    std::string back;
    std::size_t pos = 0;
    const std::string_view json(buffer.GetString(), buffer.GetSize());
    if (!zl::results::parse::read_json_string(json, pos, back) || back != input || pos != json.size()) {
      __builtin_trap();
    }
  }
  return 0;
}
