#include "slurm/script.hpp"

#include "util/error.hpp"
#include "util/string.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace zl;

namespace {

// Runs text as a bash script and returns what it printed (only fixed test strings go here).
std::string bash_output(const std::string& script)
{
  char path[] = "/tmp/zl-unit-quote-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path) << script;
  std::string out;
  if (FILE* p = ::popen((std::string("bash ") + path).c_str(), "r")) {
    char buf[512];
    size_t n;
    while ((n = ::fread(buf, 1, sizeof buf, p)) > 0) {
      out.append(buf, n);
    }
    ::pclose(p);
  }
  ::unlink(path);
  return out;
}

} // namespace

TEST_CASE("zl::util::shell_quote, as the batch scripts use it: hostile words come back from bash unchanged")
{
  for (const std::string word : {"plain", "with space", "it's", "$HOME", "`id`", "a\"b", "back\\slash", "$(touch x)",
                                 "semi;colon", "new\nline", "", "'"}) {
    CHECK(bash_output("printf '%s|' " + util::shell_quote(word)) == word + "|");
  }
}

TEST_CASE("zl::slurm::array_script: #SBATCH lines, the task index, every word quoted")
{
  slurm::ArrayOptions o;
  o.partition = "gpu";
  o.account = "proj-1";
  o.time = "1:00:00";
  o.gpus_per_task = 2;
  o.max_concurrent = 3;
  o.sbatch_args = {"--qos=long"};
  const auto s = slurm::array_script(o, 10, {"/opt/zl bin/zl", "batch", "--out", "/c/it's $x"}, "/c/it's $x/slurm");
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(s.find("#SBATCH --array=0-9%3\n") != std::string::npos);
  CHECK(s.find("#SBATCH --partition=gpu\n") != std::string::npos);
  CHECK(s.find("#SBATCH --account=proj-1\n") != std::string::npos);
  CHECK(s.find("#SBATCH --gres=gpu:2\n") != std::string::npos);
  CHECK(s.find("#SBATCH --time=1:00:00\n") != std::string::npos);
  CHECK(s.find("#SBATCH --qos=long\n") != std::string::npos);
  CHECK(s.find("exec '/opt/zl bin/zl' 'batch' '--out' '/c/it'\\''s $x' \"$task\" >>'/c/it'\\''s "
               "$x/slurm''/task-'\"$task\"'.log' 2>&1\n") != std::string::npos);
  // No throttle, no GPU, no partition: the lines are left out.
  slurm::ArrayOptions bare;
  bare.gpus_per_task = 0;
  const auto b = slurm::array_script(bare, 1, {"zl"}, "/c");
  CHECK(b.find("#SBATCH --array=0-0\n") != std::string::npos);
  CHECK(b.find("--gres") == std::string::npos);
  CHECK(b.find("--partition") == std::string::npos);
  CHECK_THROWS_AS(slurm::array_script(bare, 0, {"zl"}, "/c"), Error);
}

TEST_CASE("zl::slurm::final_script: no array, no GPU, its own log")
{
  slurm::ArrayOptions o;
  o.partition = "gpu";
  const auto s = slurm::final_script(o, {"zl", "batch", "--slurm-final"}, "/c/slurm/final.log");
  CHECK(s.find("--array") == std::string::npos);
  CHECK(s.find("--gres") == std::string::npos);
  CHECK(s.find("#SBATCH --partition=gpu\n") != std::string::npos);
  CHECK(s.find("exec 'zl' 'batch' '--slurm-final' >>'/c/slurm/final.log' 2>&1\n") != std::string::npos);
}

TEST_CASE("zl::slurm::check_options: what a #SBATCH line cannot carry is refused")
{
  slurm::ArrayOptions o;
  CHECK_NOTHROW(slurm::check_options(o));
  o.partition = "gpu part";
  CHECK_THROWS_WITH_AS(slurm::check_options(o), doctest::Contains("--partition"), Error);
  o.partition = "gpu";
  o.account = "a;b";
  CHECK_THROWS_AS(slurm::check_options(o), Error);
  o.account = "";
  o.sbatch_args = {"--comment=two words"};
  CHECK_THROWS_WITH_AS(slurm::check_options(o), doctest::Contains("--sbatch-arg"), Error);
  o.sbatch_args = {"qos=long"};
  CHECK_THROWS_AS(slurm::check_options(o), Error);
  o.sbatch_args = {};
  o.time = "1:00\n#SBATCH --x";
  CHECK_THROWS_AS(slurm::check_options(o), Error);
  o.time = "";
  o.max_concurrent = 0;
  CHECK_THROWS_AS(slurm::check_options(o), Error);
}

TEST_CASE("zl::slurm::sbatch_argv and zl::slurm::parse_job_id")
{
  CHECK(slurm::sbatch_argv("/c/a.sbatch") == std::vector<std::string>{"sbatch", "--parsable", "/c/a.sbatch"});
  CHECK(slurm::sbatch_argv("/c/f.sbatch", "12") ==
        std::vector<std::string>{"sbatch", "--parsable", "--dependency=afterany:12", "/c/f.sbatch"});
  CHECK(slurm::parse_job_id("17\n") == "17");
  CHECK(slurm::parse_job_id("17;cluster2\n") == "17");
  CHECK_THROWS_AS(slurm::parse_job_id("Submitted batch job 17\n"), Error);
  CHECK_THROWS_AS(slurm::parse_job_id(""), Error);
}
