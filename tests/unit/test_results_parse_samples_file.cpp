#include "results/parse/samples_file.hpp"

#include "results_helpers.hpp"
#include "util/error.hpp"

#include <boost/crc.hpp>
#include <doctest/doctest.h>

#include <cstring>

using namespace zl::results;
using namespace zl::results::parse;

namespace {

void put_u32(std::string& out, std::uint32_t v)
{
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
}

void put_floats(std::string& out, const std::vector<float>& v)
{
  for (const float f : v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    put_u32(out, bits);
  }
}

// One record as zl_samples.Sampler writes it (tests/python checks the plugin's side).
std::string record(const std::string& header, const std::vector<float>& ms)
{
  std::string body;
  put_u32(body, static_cast<std::uint32_t>(header.size()));
  put_u32(body, static_cast<std::uint32_t>(ms.size()));
  body += header;
  put_floats(body, ms);
  std::vector<float> at(ms.size());
  for (std::size_t i = 0; i < at.size(); ++i) {
    at[i] = 0.001f * static_cast<float>(i + 1);
  }
  put_floats(body, at);
  boost::crc_32_type crc;
  crc.process_bytes(body.data(), body.size());
  std::string out = "ZLR1" + body;
  put_u32(out, crc.checksum());
  return out;
}

std::string header(const std::string& shape, double returned, const std::string& stop = "converged")
{
  return fmt::format(R"({{"op":"abs","table_op":"abs","dtype":"torch.float16","shape":"{}","timer":"graph",)"
                     R"("stop":"{}","calls":2,"returned":{},"stamps":"measured","t0":1700000000.5}})",
                     shape, stop, returned);
}

std::vector<float> around(float median)
{
  return {median * 0.99f, median * 0.995f, median, median, median * 1.005f, median * 1.01f, median};
}

} // namespace

TEST_CASE("parse_samples: records in order; a torn or damaged tail is named and left out")
{
  const auto first = record(header("[torch.Size([64])]", 1.5), around(1.5f));
  const auto second = record(header("[torch.Size([64])]", 0.5, "max_time"), around(0.5f));
  std::vector<Diagnostic> diags;
  const auto all = parse_samples("ZLSAMPL1" + first + second, "s.bin", diags);
  REQUIRE(all.size() == 2);
  CHECK(diags.empty());
  CHECK(all[0].table_op == "abs");
  CHECK(all[0].stamps_measured);
  CHECK(all[0].calls == 2);
  CHECK(all[0].t0 == doctest::Approx(1700000000.5));
  CHECK(all[1].stop == SampleStop::max_time);
  CHECK(all[1].ms.size() == 7);
  CHECK(all[1].at_s[6] == doctest::Approx(0.007));

  SUBCASE("cut short")
  {
    const auto cut = parse_samples("ZLSAMPL1" + first + second.substr(0, 30), "s.bin", diags);
    CHECK(cut.size() == 1);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].reason.find("cut short") != std::string::npos);
  }
  SUBCASE("a flipped byte")
  {
    auto damaged = second;
    damaged[20] ^= 1;
    CHECK(parse_samples("ZLSAMPL1" + first + damaged, "s.bin", diags).size() == 1);
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].reason.find("CRC") != std::string::npos);
  }
  SUBCASE("an unknown stop")
  {
    CHECK(parse_samples("ZLSAMPL1" + record(header("[1]", 1, "soon"), around(1)), "s.bin", diags).empty());
    CHECK(diags.size() == 1);
  }
  SUBCASE("not a samples file")
  {
    CHECK_THROWS_WITH_AS(parse_samples("PK\x03\x04", "s.bin", diags), doctest::Contains("s.bin"), zl::Error);
    CHECK(parse_samples("ZLSAMPL1", "s.bin", diags).empty()); // a run that timed nothing yet
  }
}

TEST_CASE("attach_samples: by names and the latency the timer returned, torch's then FlagGems'")
{
  // The table prints six decimals; the record keeps what the timer returned.
  auto run = zl::test::run_of(zl::test::table(
      "abs", "torch.float16", {{"[torch.Size([64])]", 1.5000004, 0.5}, {"[torch.Size([128])]", 2.0, 1.0}}));
  std::vector<Diagnostic> diags;
  auto records = parse_samples("ZLSAMPL1" + record(header("[torch.Size([64])]", 1.5000004), around(1.5f)) +
                                   record(header("[torch.Size([64])]", 0.5), around(0.5f)) +
                                   record(header("[torch.Size([128])]", 7.0), around(7.0f)) + // matches no row
                                   record(header("(torch.Size([128]),)", 1.0), around(1.0f)), // another spelling
                               "s.bin", diags);
  attach_samples(run, std::move(records));
  REQUIRE(run.rows.size() == 2);
  const auto* torch = run.samples_of(run.rows[0], false);
  const auto* gems = run.samples_of(run.rows[0], true);
  REQUIRE(torch != nullptr);
  REQUIRE(gems != nullptr);
  CHECK(torch->stats.median == doctest::Approx(1.5));
  CHECK(gems->stats.median == doctest::Approx(0.5));
  CHECK(gems->timer == "graph");
  CHECK(run.samples_of(run.rows[1], false) == nullptr); // 7.0 is not its torch latency
  REQUIRE(run.samples_of(run.rows[1], true) != nullptr);
  CHECK(run.samples_of(run.rows[1], true)->stats.n == 7);
}
