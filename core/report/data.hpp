// zl report's data: what the page draws, as compact JSON, built from what zl summary computes
// (core/results/compare) so that the page and `zl summary` never disagree.
#pragma once

#include "results/compare/ab.hpp"
#include "results/model.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zl::results::store {
class Store;
}

namespace zl::report {

// Compact: a page of 700 ops × 3 dtypes is mostly numbers, and indentation would double it.
class Json
{
public:
  // Six decimals: what FlagGems prints of a latency in ms; a ratio's seventeen digits are noise.
  Json() : m_w(m_buffer) { m_w.SetMaxDecimalPlaces(6); }
  rapidjson::Writer<rapidjson::StringBuffer>& w() { return m_w; }
  void key(std::string_view k) { m_w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
  void str(std::string_view v) { m_w.String(v.data(), static_cast<rapidjson::SizeType>(v.size())); }
  // A number, or null for NaN (JSON has none).
  void num(double v);
  void field(std::string_view k, std::string_view v) { key(k), str(v); }
  void field(std::string_view k, const char* v) { key(k), str(v); }
  void field(std::string_view k, double v) { key(k), num(v); }
  void field(std::string_view k, long long v) { key(k), m_w.Int64(v); }
  void field(std::string_view k, std::size_t v) { key(k), m_w.Uint64(v); }
  void field(std::string_view k, bool v) { key(k), m_w.Bool(v); }
  void strings(std::string_view k, const std::vector<std::string>& values);
  std::string text() const { return std::string(m_buffer.GetString(), m_buffer.GetSize()); }

private:
  rapidjson::StringBuffer m_buffer;
  rapidjson::Writer<rapidjson::StringBuffer> m_w;
};

// Labels longer than this are shortened on the page (a 10 MB op name must not make a 10 MB
// page); the page says that some were.
constexpr std::size_t k_label_max = 512;
// A message (a failure's error, a traceback) is read whole: only one past this is shortened.
constexpr std::size_t k_message_max = std::size_t{64} * 1024;
// label cut at max bytes (on a UTF-8 boundary) with "… (N bytes)"; counts into *cut.
std::string shown(std::string_view label, std::size_t* cut = nullptr, std::size_t max = k_label_max);

// The number of elements a Size Detail names: the product of the integers of its first list of
// integers only ("[torch.Size([64, 64]), 1]": 4096, "[1073741824]"); NaN where it has none.
double element_count(std::string_view size_detail);
// Indices of shapes ordered by element count (shapes have no order of their own; a count is
// the size a reader means), those without a count after, each in the order given.
std::vector<std::size_t> by_element_count(const std::vector<std::string_view>& shapes);

// The caliber of a group of runs, every field a campaign's numbers depend on, as the runs'
// run_identity.json records it: each field's values (several where runs disagree on a field
// outside the key, such as devices).
struct CaliberInfo
{
  std::string key;               // what must agree for numbers to compare: describe(), executor, extra args
  std::vector<std::size_t> runs; // indices into the runs grouped
  std::vector<std::pair<std::string, std::set<std::string>>> fields; // field -> values, in the page's order
};

// The key runs of one caliber share (results::compare::describe, the executor, pytest's extra
// arguments).
std::string caliber_key(const results::RunInfo& info);

// Runs split by caliber key, in order of first appearance.
std::vector<CaliberInfo> group_by_caliber(const std::vector<results::Run>& runs);

// {"key":…, "runs":N, "fields":[[name,[values…]],…]}
void write_caliber(Json& j, const CaliberInfo& c);

// The campaign view: per caliber (runs of mixed caliber are split, never summarized together),
// zl summary's groups (geometric-mean speedups), each op's latency against size with the
// distribution of its samples, the rows whose samples warn and how many stopped at a cap,
// failures, fallbacks, markers and the ops its campaign did not call ok. ops: the campaigns'
// ops_status.csv. Writes a JSON object; counts labels it shortened into *cut.
void write_campaign(Json& j, const std::vector<results::Run>& runs, const std::vector<results::OpOutcome>& ops,
                    std::size_t* cut);

// The device's timeline of a caliber's runs (their telemetry.jsonl, report/telemetry.cpp): every
// reading's SM and memory clocks, temperature and power on one time axis, thinned to a few
// thousand points but keeping each that says the device was throttled, and the rows timed while
// it was. null where no run read telemetry.
void write_telemetry(Json& j, const std::vector<const results::Run*>& runs, std::size_t* cut);

// The A/B view: results::compare::compare's result per op (B/A, range, verdict counts, the op's
// colour: op_verdict) and per pairing, with both sides' calibers.
struct AbSides
{
  std::string a_path, b_path;
  const std::vector<results::Run>* a = nullptr;
  const std::vector<results::Run>* b = nullptr;
  bool forced = false;
  results::compare::AbOptions options;
};
void write_ab(Json& j, const results::compare::AbResult& r, const AbSides& sides, std::size_t* cut);

// An op's colour on the page, from its pairings' U-test verdicts: slower when any is slower (a
// regression is what a reader must see), else faster when any is faster, else ambiguous when any is,
// else same; none when no pairing had rounds enough to test.
results::compare::Verdict op_verdict(const results::compare::OpComparison& op);

// The campaign a stored run belongs to: its run folder's parent, a round-N folder (zl ab's,
// rounds of one campaign) looked through.
std::string campaign_of(const std::string& run_path);

// The history view: the store's campaigns split by caliber, the last n of each caliber in order
// of their first run's start; per op, dtype, Size Detail and device the median FlagGems latency in
// each, and the change points `zl history` finds over those campaigns.
void write_history(Json& j, const results::store::Store& store, std::size_t n, std::size_t* cut);

} // namespace zl::report
