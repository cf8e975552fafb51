// An object's fields in one table: each field's JSON key and value and, where a text table
// shows it, its column. Every document that writes the object picks fields from this table, in
// its own order, so that a field is named and computed in one place (ccache's one table of
// statistics fields, which drives both its human and its machine output, is the model).
#pragma once

#include "util/error.hpp"
#include "util/json.hpp"

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace zl::util {

template <typename T, typename Id>
struct Field
{
  Id id;
  const char* key;                         // the JSON key
  void (*json)(JsonWriter&, const T&);     // writes the value
  const char* header = nullptr;            // the text column's header; none: not a column
  std::string (*text)(const T&) = nullptr; // the text cell
};

// A document's pick of a field. key: the name the document publishes it under, where that
// predates the table and is kept for its readers (null: the table's key).
template <typename Id>
struct Pick
{
  Pick(Id field, const char* published = nullptr) : id(field), key(published) {}
  Id id;
  const char* key;
};

// The table's entry for id; column: one a text table shows.
template <typename T, typename Id, std::size_t N>
const Field<T, Id>& field_of(const Field<T, Id> (&table)[N], Id id, bool column = false)
{
  for (const auto& f : table) {
    if (f.id == id && (!column || f.text != nullptr)) {
      return f;
    }
  }
  throw Error(column ? "internal error: a text column picked from a field that has none (core/util/fields.hpp)"
                     : "internal error: a field missing from its table (core/util/fields.hpp)",
              k_exit_internal);
}

// Writes the fields picked, in that order, as members of the JSON object being written.
template <typename T, typename Id, std::size_t N>
void write_fields(JsonWriter& j, const Field<T, Id> (&table)[N], const T& object, std::initializer_list<Pick<Id>> picks)
{
  for (const auto& p : picks) {
    const auto& f = field_of(table, p.id);
    j.key(p.key != nullptr ? p.key : f.key);
    f.json(j, object);
  }
}

template <typename T, typename Id, std::size_t N>
std::vector<std::string> text_header(const Field<T, Id> (&table)[N], const std::vector<Id>& picks)
{
  std::vector<std::string> header;
  for (const auto id : picks) {
    header.emplace_back(field_of(table, id, true).header);
  }
  return header;
}

template <typename T, typename Id, std::size_t N>
std::vector<std::string> text_row(const Field<T, Id> (&table)[N], const T& object, const std::vector<Id>& picks)
{
  std::vector<std::string> row;
  for (const auto id : picks) {
    row.push_back(field_of(table, id, true).text(object));
  }
  return row;
}

} // namespace zl::util
