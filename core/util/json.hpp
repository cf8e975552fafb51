// Writing JSON (RapidJSON underneath), pretty-printed, into a string.
#pragma once

#include "util/error.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace zl::util {

// A value read from a file, written out again. RapidJSON reads some numbers beyond the double
// range (11e308; 1e309 it refuses) as infinity, and its writer then stops half-way
// (tests/fuzz/regressions/receipt): such a value is refused, what naming where it came from.
template <typename Writer>
void write_value(const rapidjson::Value& v, Writer& w, const std::string& what)
{
  if (!v.Accept(w)) {
    throw Error(fmt::format("{} holds a number beyond the range of a double (such as 11e308), which zl cannot "
                            "write back as JSON",
                            what));
  }
}

class JsonWriter
{
public:
  JsonWriter() : m_writer(m_buffer) { m_writer.SetIndent(' ', 2); }

  rapidjson::PrettyWriter<rapidjson::StringBuffer>& w() { return m_writer; }
  void key(const std::string& k) { m_writer.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size())); }
  void str(const std::string& v) { m_writer.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size())); }
  // A value: for an object's members written by its field table (core/util/fields.hpp).
  void value(const std::string& v) { str(v); }
  void value(const char* v) { str(v); }
  void value(bool v) { m_writer.Bool(v); }
  void value(long long v) { m_writer.Int64(v); }
  void value(unsigned long long v) { m_writer.Uint64(v); }
  void value(int v) { m_writer.Int(v); }
  void value(unsigned v) { m_writer.Uint(v); }
  // JSON has no infinity or NaN, and RapidJSON's writer would stop at one: null stands for it.
  void value(double v)
  {
    std::isfinite(v) ? static_cast<void>(m_writer.Double(v)) : static_cast<void>(m_writer.Null());
  }
  void value(const std::vector<std::string>& values)
  {
    m_writer.StartArray();
    for (const auto& v : values) {
      str(v);
    }
    m_writer.EndArray();
  }
  // A parsed value, copied (write_value above).
  void copy(const rapidjson::Value& v, const std::string& what) { write_value(v, m_writer, what); }
  // A string, or null when empty.
  void nullable_value(const std::string& v) { v.empty() ? static_cast<void>(m_writer.Null()) : str(v); }
  template <typename T>
  void nullable_value(const std::optional<T>& v)
  {
    v ? value(*v) : static_cast<void>(m_writer.Null());
  }

  template <typename T>
  void field(const std::string& k, const T& v)
  {
    key(k), value(v);
  }
  template <typename T>
  void nullable(const std::string& k, const T& v)
  {
    key(k), nullable_value(v);
  }
  void strings(const std::string& k, const std::vector<std::string>& values) { field(k, values); }
  // An object member: its key, then what fill writes between the braces.
  template <typename Fill>
  void object(const std::string& k, Fill&& fill)
  {
    key(k);
    m_writer.StartObject();
    fill();
    m_writer.EndObject();
  }
  // The document, with a final newline.
  std::string text() const { return std::string(m_buffer.GetString(), m_buffer.GetSize()) + "\n"; }

private:
  rapidjson::StringBuffer m_buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> m_writer;
};

} // namespace zl::util
