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
  void field(const std::string& k, const std::string& v) { key(k), str(v); }
  void field(const std::string& k, const char* v) { key(k), str(v); }
  void field(const std::string& k, bool v) { key(k), m_writer.Bool(v); }
  void field(const std::string& k, long long v) { key(k), m_writer.Int64(v); }
  void field(const std::string& k, unsigned long long v) { key(k), m_writer.Uint64(v); }
  void field(const std::string& k, int v) { key(k), m_writer.Int(v); }
  void field(const std::string& k, unsigned v) { key(k), m_writer.Uint(v); }
  void field(const std::string& k, double v) { key(k), m_writer.Double(v); }
  // A string, or null when empty.
  void nullable(const std::string& k, const std::string& v)
  {
    key(k);
    v.empty() ? static_cast<void>(m_writer.Null()) : str(v);
  }
  template <typename T>
  void nullable(const std::string& k, const std::optional<T>& v)
  {
    v ? field(k, *v) : (key(k), static_cast<void>(m_writer.Null()));
  }
  void strings(const std::string& k, const std::vector<std::string>& values)
  {
    key(k);
    m_writer.StartArray();
    for (const auto& v : values) {
      str(v);
    }
    m_writer.EndArray();
  }
  // The document, with a final newline.
  std::string text() const { return std::string(m_buffer.GetString(), m_buffer.GetSize()) + "\n"; }

private:
  rapidjson::StringBuffer m_buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> m_writer;
};

} // namespace zl::util
