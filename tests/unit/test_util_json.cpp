#include "util/error.hpp"
#include "util/json.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <limits>

TEST_CASE("zl::util::JsonWriter: a double JSON cannot hold is written as null")
{
  zl::util::JsonWriter j;
  j.w().StartObject();
  j.field("inf", std::numeric_limits<double>::infinity());
  j.field("nan", std::numeric_limits<double>::quiet_NaN());
  j.field("x", 1.5);
  j.w().EndObject();
  rapidjson::Document d;
  REQUIRE_FALSE(d.Parse(j.text().c_str()).HasParseError());
  CHECK(d["inf"].IsNull());
  CHECK(d["nan"].IsNull());
  CHECK(d["x"].GetDouble() == 1.5);
}

TEST_CASE("zl::util::write_value")
{
  rapidjson::Document d;
  // 11e308 is read as infinity; 1e309 RapidJSON refuses when parsing.
  REQUIRE_FALSE(d.Parse(R"({"a": [1, {"b": 11e308}]})").HasParseError());
  zl::util::JsonWriter j;
  try {
    j.copy(d, "the file F");
    FAIL("copy wrote infinity");
  } catch (const zl::Error& e) {
    CHECK(std::string(e.what()).rfind("the file F holds a number beyond the range of a double", 0) == 0);
  }
  rapidjson::Document ok;
  REQUIRE_FALSE(ok.Parse(R"({"a": [1, {"b": 2.5}]})").HasParseError());
  zl::util::JsonWriter k;
  k.copy(ok, "the file G");
  CHECK(k.text() == "{\n  \"a\": [\n    1,\n    {\n      \"b\": 2.5\n    }\n  ]\n}\n");
}
