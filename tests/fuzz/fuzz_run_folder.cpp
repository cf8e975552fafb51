// Another run's folder as `zl summary` and `zl batch --resume` read it. Input: run_identity.json,
// k_part_separator, run.log, k_part_separator, record.log; written into a run folder, then read
// by results::load (the summary) and batch::legacy_differences (--resume of an older campaign).
#include "batch/caliber.hpp"
#include "batch/ops_status.hpp"
#include "fuzz_util.hpp"
#include "results/parse/sources.hpp"
#include "util/error.hpp"

#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const auto parts = zl::fuzz::split_parts(zl::fuzz::as_text(data, size), 3);
  static const std::string campaign = zl::fuzz::scratch();
  static const std::string dir = [] {
    const auto d = campaign + "/abs";
    ::mkdir(d.c_str(), 0700);
    return d;
  }();
  zl::fuzz::put_file(dir + "/run_identity.json", parts[0]);
  zl::fuzz::put_file(dir + "/run.log", parts[1]);
  zl::fuzz::put_file(dir + "/record.log", parts[2]);
  try {
    zl::results::parse::Source source;
    source.path = dir;
    zl::results::parse::load(source);
  } catch (const zl::Error&) {
  }
  zl::results::RunInfo info;
  zl::results::parse::caliber_from_identity(info, parts[0]);
  zl::batch::OpStatus status;
  status.op = "abs";
  status.backend = "cuda";
  zl::batch::Caliber now;
  now.backend = "cpu";
  now.level = "core";
  now.dtypes = {"float16"};
  try {
    zl::batch::legacy_differences({status}, campaign, now);
  } catch (const zl::Error&) {
  }
  return 0;
}
