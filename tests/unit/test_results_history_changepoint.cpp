#include "results/history/changepoint.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace zl::results::history;

namespace {

// Multiplicative noise of standard deviation sd from a fixed linear congruential generator
// (uniform, so the same on every platform), around the given levels; campaigns from first.
std::vector<Point> series_of(const std::vector<double>& levels, double sd, std::size_t first = 0)
{
  std::uint32_t state = 12345;
  std::vector<Point> out;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    const double u = static_cast<double>(state) / 4294967296.0 * 2 - 1; // [-1, 1)
    Point p;
    p.value = levels[i] * std::exp(u * sd * std::sqrt(3.0));
    p.campaign = first + i;
    out.push_back(p);
  }
  return out;
}

std::vector<double> levels(std::size_t n, double level)
{
  return std::vector<double>(n, level);
}

std::vector<double> join(std::vector<double> a, const std::vector<double>& b)
{
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::size_t confirmed(const SeriesChanges& r)
{
  std::size_t c = 0;
  for (const auto& cp : r.changes) {
    c += cp.confirmed ? 1 : 0;
  }
  return c;
}

std::string rejection(const std::vector<Point>& s)
{
  try {
    find_changes(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("zl::results::history::changepoint: a clean step is found where it starts, with its direction")
{
  const auto r = find_changes(series_of(join(levels(20, 1.0), levels(20, 1.05)), 0.005, 100));
  REQUIRE(r.changes.size() == 1);
  const ChangePoint& cp = r.changes[0];
  CHECK(cp.index == 20);
  CHECK(cp.campaign == 120);
  CHECK(cp.confirmed);
  CHECK(cp.direction == Direction::slower);
  CHECK(cp.relative == doctest::Approx(0.05).epsilon(0.01));
  CHECK(cp.before == doctest::Approx(1.0).epsilon(0.01));
  CHECK(cp.after == doctest::Approx(1.05).epsilon(0.01));
  CHECK(cp.score > 10);
  CHECK(!cp.in_drift);
  CHECK(!r.drift); // a step is not also a drift
  CHECK(r.noise == doctest::Approx(0.005).epsilon(0.4));

  const auto down = find_changes(series_of(join(levels(25, 2.0), levels(15, 1.9)), 0.005));
  REQUIRE(down.changes.size() == 1);
  CHECK(down.changes[0].index == 25);
  CHECK(down.changes[0].direction == Direction::faster);
  CHECK(down.changes[0].relative == doctest::Approx(-0.05).epsilon(0.01));
}

TEST_CASE("zl::results::history::changepoint: a level that comes back gives two changes")
{
  const auto r = find_changes(series_of(join(join(levels(15, 1.0), levels(10, 1.1)), levels(15, 1.0)), 0.005));
  REQUIRE(r.changes.size() == 2);
  CHECK(r.changes[0].index == 15);
  CHECK(r.changes[0].direction == Direction::slower);
  CHECK(r.changes[1].index == 25);
  CHECK(r.changes[1].direction == Direction::faster);
  CHECK(confirmed(r) == 2);
}

TEST_CASE("zl::results::history::changepoint: single outliers are not change points")
{
  auto s = series_of(levels(40, 1.0), 0.01);
  s[20].value *= 1.3;
  auto r = find_changes(s);
  CHECK(r.changes.empty());
  CHECK(r.outliers == std::vector<std::size_t>{20});

  // Two close spikes, one at the start, one falling: still no level.
  s[22].value *= 1.3;
  s[0].value *= 1.3;
  s[30].value /= 1.3;
  r = find_changes(s);
  CHECK(r.changes.empty());
  CHECK(r.outliers == std::vector<std::size_t>{0, 20, 22, 30});
  CHECK(!r.drift);
}

TEST_CASE("zl::results::history::changepoint: a step in the last points is tentative until it persists")
{
  const std::size_t m = ChangepointOptions{}.min_segment;
  REQUIRE(m >= 3);
  // One point: the newest campaign alone may be a spike or a start; at most tentative.
  auto r = find_changes(series_of(join(levels(30, 1.0), levels(1, 1.2)), 0.005));
  CHECK(confirmed(r) == 0);

  for (std::size_t tail = 2; tail < m; ++tail) {
    CAPTURE(tail);
    r = find_changes(series_of(join(levels(30, 1.0), levels(tail, 1.2)), 0.005));
    REQUIRE(r.changes.size() == 1);
    CHECK(r.changes[0].index == 30);
    CHECK(!r.changes[0].confirmed);
    CHECK(r.changes[0].direction == Direction::slower);
  }

  r = find_changes(series_of(join(levels(30, 1.0), levels(m, 1.2)), 0.005));
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].index == 30);
  CHECK(r.changes[0].confirmed);

  // Persistence is an option: at 3, three points confirm.
  ChangepointOptions three;
  three.min_segment = 3;
  three.filter_half_width = 2;
  r = find_changes(series_of(join(levels(30, 1.0), levels(3, 1.2)), 0.005), three);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].confirmed);
}

TEST_CASE("zl::results::history::changepoint: a constant series has no change, no drift and the floor as noise")
{
  const std::vector<Point> s = series_of(levels(50, 2.0), 0);
  const auto r = find_changes(s);
  CHECK(r.changes.empty());
  CHECK(!r.drift);
  CHECK(r.outliers.empty());
  CHECK(r.noise == doctest::Approx(ChangepointOptions{}.min_noise));
}

TEST_CASE("zl::results::history::changepoint: very short series")
{
  CHECK(find_changes({}).changes.empty());
  CHECK(find_changes({}).noise == 0);
  CHECK(find_changes(series_of({1.0}, 0)).changes.empty());
  CHECK(find_changes(series_of({1.0, 2.0}, 0)).changes.empty());
  // Five points, persistence 3: the first level needs three, so a change can only be a tail.
  ChangepointOptions o;
  o.min_segment = 3;
  o.filter_half_width = 2;
  const auto r = find_changes(series_of({1.0, 1.0, 1.0, 2.0, 2.0}, 0), o);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].index == 3);
  CHECK(!r.changes[0].confirmed);
  CHECK(r.changes[0].relative == doctest::Approx(1.0));
  CHECK(!r.drift);
  // Six: both levels hold three points.
  CHECK(confirmed(find_changes(series_of({1.0, 1.0, 1.0, 2.0, 2.0, 2.0}, 0), o)) == 1);
  // At the default persistence (4), five points cannot hold a confirmed change; eight can.
  CHECK(confirmed(find_changes(series_of({1.0, 1.0, 1.0, 2.0, 2.0}, 0))) == 0);
  CHECK(confirmed(find_changes(series_of({1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0}, 0))) == 1);
}

TEST_CASE("zl::results::history::changepoint: a drift over the last campaigns is reported with its slope")
{
  std::vector<double> lv = levels(10, 1.0);
  for (std::size_t i = 1; i <= 30; ++i) {
    lv.push_back(std::pow(1.005, static_cast<double>(i)));
  }
  const auto r = find_changes(series_of(lv, 0.003, 7));
  REQUIRE(r.drift);
  CHECK(r.drift->first_index == 10);
  CHECK(r.drift->last_index == 39);
  CHECK(r.drift->first_campaign == 17);
  CHECK(r.drift->last_campaign == 46);
  CHECK(r.drift->slope == doctest::Approx(0.005).epsilon(0.1));
  CHECK(r.drift->z > 5);
  CHECK(r.drift->p < 1e-6);
  for (const auto& cp : r.changes) {
    CHECK((cp.in_drift || cp.index <= 10));
  }

  // A gentler slope than noise can tell over the window: none.
  std::vector<double> flat;
  for (std::size_t i = 0; i < 30; ++i) {
    flat.push_back(std::pow(1.0002, static_cast<double>(i)));
  }
  CHECK(!find_changes(series_of(flat, 0.01)).drift);
}

TEST_CASE("zl::results::history::changepoint: the points' intervals raise the noise")
{
  auto s = series_of(join(levels(20, 1.0), levels(20, 1.03)), 0.003);
  CHECK(confirmed(find_changes(s)) == 1);
  for (Point& p : s) { // each median known to +-10%: a 3% step between them is not a finding
    p.ci_lo = p.value / 1.1;
    p.ci_hi = p.value * 1.1;
  }
  const auto r = find_changes(s);
  CHECK(r.noise == doctest::Approx(2 * std::log(1.1) / (2 * 1.96)));
  CHECK(r.changes.empty());
}

TEST_CASE("zl::results::history::changepoint: invalid points are rejected, naming the point")
{
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, 0.0, -1.0}) {
    auto s = series_of(levels(10, 1.0), 0.01);
    s[3].value = bad;
    const std::string what = rejection(s);
    CHECK(what.find("point 3 ") != std::string::npos);
    CHECK(what.find("finite and > 0") != std::string::npos);
  }
  auto s = series_of(levels(10, 1.0), 0.01);
  s[6].campaign = s[5].campaign;
  CHECK(rejection(s).find("point 6 ") != std::string::npos);

  s = series_of(levels(10, 1.0), 0.01);
  s[2].ci_lo = 0.9; // no upper end
  CHECK(rejection(s).find("point 2 ") != std::string::npos);
  s[2].ci_hi = 0.8; // below the lower end
  CHECK(rejection(s).find("point 2 ") != std::string::npos);
  s[2].ci_hi = 1.1;
  CHECK(rejection(s).empty());

  ChangepointOptions o;
  o.min_segment = 0;
  CHECK_THROWS_AS(find_changes(s, o), std::invalid_argument);
  o = {};
  o.alpha = 0;
  CHECK_THROWS_AS(find_changes(s, o), std::invalid_argument);
}
