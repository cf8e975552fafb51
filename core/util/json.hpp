// Writing JSON (RapidJSON underneath), pretty-printed, into a string.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <optional>
#include <string>
#include <vector>

namespace zl::util {

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
  void value(double v) { m_writer.Double(v); }
  void value(const std::vector<std::string>& values)
  {
    m_writer.StartArray();
    for (const auto& v : values) {
      str(v);
    }
    m_writer.EndArray();
  }
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
