#include "results/parse/samples_file.hpp"

#include "results/compare/ab.hpp"
#include "util/error.hpp"
#include "util/string.hpp"

#include <boost/crc.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <unordered_map>

namespace zl::results::parse {

namespace {

constexpr std::string_view k_file_magic = "ZLSAMPL1";
constexpr std::string_view k_record_tag = "ZLR1";

std::uint32_t u32(const char* p)
{
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(p[i]);
  }
  return v;
}

std::vector<float> floats(const char* p, std::uint32_t n)
{
  std::vector<float> out(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t bits = u32(p + std::size_t{4} * i); // little-endian on every host
    std::memcpy(&out[i], &bits, sizeof bits);
  }
  return out;
}

std::string text(const rapidjson::Value& o, const char* key)
{
  return o.HasMember(key) && o[key].IsString() ? o[key].GetString() : "";
}

// The record's header into r; "" or why it is not one.
std::string read_header(std::string_view json, SampleRecord& r)
{
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) {
    return "its header is not a JSON object";
  }
  r.op = text(d, "op"), r.table_op = text(d, "table_op"), r.dtype = text(d, "dtype"), r.shape = text(d, "shape");
  r.timer = text(d, "timer"), r.no_samples = text(d, "no_samples");
  r.stamps_measured = text(d, "stamps") == "measured";
  if (!parse_sample_stop(text(d, "stop"), r.stop)) {
    return fmt::format("its stop '{}' is none of fixed, converged, max_samples, max_time", text(d, "stop"));
  }
  r.calls = d.HasMember("calls") && d["calls"].IsUint() ? d["calls"].GetUint() : 0;
  r.returned = d.HasMember("returned") && d["returned"].IsNumber() ? d["returned"].GetDouble() : k_na;
  r.t0 = d.HasMember("t0") && d["t0"].IsNumber() ? d["t0"].GetDouble() : 0;
  return {};
}

} // namespace

std::vector<SampleRecord> parse_samples(std::string_view bytes, const std::string& file,
                                        std::vector<Diagnostic>& diagnostics)
{
  if (bytes.substr(0, k_file_magic.size()) != k_file_magic) {
    throw Error(fmt::format("{} is not a samples file of zl (it does not start with {}): move it out of the run "
                            "folder, or rerun the op",
                            util::printable(file), k_file_magic));
  }
  std::vector<SampleRecord> out;
  std::size_t at = k_file_magic.size();
  auto fail = [&](const std::string& why) {
    diagnostics.push_back(
        {file, 0, fmt::format("samples record at byte {}: {}; it and what follows are not read", at, why)});
  };
  while (at < bytes.size()) {
    const auto rest = bytes.size() - at;
    if (rest < 12 || bytes.substr(at, 4) != k_record_tag) {
      fail(rest < 12 ? "cut short (an interrupted run)" : "no record starts there");
      break;
    }
    const auto head = u32(bytes.data() + at + 4), n = u32(bytes.data() + at + 8);
    const auto body = std::uint64_t{8} + head + std::uint64_t{8} * n; // lengths, header, two arrays
    if (rest < 4 + body + 4) {
      fail("cut short (an interrupted run)");
      break;
    }
    const char* p = bytes.data() + at + 4;
    boost::crc_32_type crc;
    crc.process_bytes(p, body);
    if (crc.checksum() != u32(p + body)) {
      fail("its CRC does not match (the file was damaged)");
      break;
    }
    SampleRecord r;
    r.offset = at;
    if (const auto why = read_header({p + 8, head}, r); !why.empty()) {
      fail(why);
      break;
    }
    r.ms = floats(p + 8 + head, n);
    r.at_s = floats(p + 8 + head + std::size_t{4} * n, n);
    out.push_back(std::move(r));
    at += 4 + body + 4;
  }
  return out;
}

namespace {

// The table prints latencies to six decimals; the record log has them whole.
bool same_latency(double returned, double printed)
{
  return has_value(returned) && has_value(printed) &&
         std::fabs(returned - printed) <= 5.000001e-7 + 1e-9 * std::fabs(printed);
}

SampleSet sample_set(SampleRecord& r, TextStore& text)
{
  SampleSet s;
  s.stats = describe_samples(std::vector<double>(r.ms.begin(), r.ms.end()));
  s.ms = std::move(r.ms), s.at_s = std::move(r.at_s);
  s.t0 = r.t0, s.stamps_measured = r.stamps_measured, s.timer = text.copy(r.timer);
  s.stop = r.stop, s.calls = r.calls, s.returned = r.returned;
  return s;
}

} // namespace

void attach_samples(Run& run, std::vector<SampleRecord> records)
{
  std::unordered_map<std::string, std::deque<std::size_t>> pending; // key -> records in order
  auto key = [](std::string_view op, std::string_view dtype, std::string_view shape) {
    return fmt::format("{}\n{}\n{}", op, dtype, compare::canonical_shape(shape));
  };
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!records[i].ms.empty()) {
      pending[key(records[i].table_op, records[i].dtype, records[i].shape)].push_back(i);
    }
  }
  for (auto& row : run.rows) {
    const auto it = pending.find(key(row.op(), row.dtype(), row.shape));
    if (it == pending.end()) {
      continue;
    }
    auto take = [&](double latency, std::int32_t& slot) {
      auto& queue = it->second;
      for (auto q = queue.begin(); q != queue.end(); ++q) {
        if (same_latency(records[*q].returned, latency)) {
          slot = static_cast<std::int32_t>(run.samples.size());
          run.samples.push_back(sample_set(records[*q], run.text));
          queue.erase(q);
          return;
        }
      }
    };
    take(row.torch_ms, row.torch_samples);
    take(row.gems_ms, row.gems_samples);
  }
}

} // namespace zl::results::parse
