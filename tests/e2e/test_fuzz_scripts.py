"""scripts/fuzz.sh's rounds (scripts/fuzz-lib.sh), driven against a stand-in for a libFuzzer
target: a long run goes in fresh processes of FUZZ_ROUND_RUNS executions whose counts add up,
stops at a failing round or one the time limit cut short, and refuses a bad round size before
anything runs. The stand-in (constructed here) answers -runs=N as libFuzzer does, replaying its
corpus first, so a round may run more than it was asked to."""
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("ZL_SOURCE_DIR", Path(__file__).resolve().parents[2]))

FAKE = textwrap.dedent(
    """\
    #!/usr/bin/env python3
    import os, sys
    args = dict(a[1:].split("=", 1) for a in sys.argv[1:] if a.startswith("-") and "=" in a)
    calls = os.environ["FAKE_CALLS"]
    with open(calls, "a") as f:
        f.write(args["runs"] + " " + args["max_total_time"] + "\\n")
    call = sum(1 for _ in open(calls))
    if str(call) == os.environ.get("FAKE_FAIL_AT"):
        print("==1==ERROR: AddressSanitizer: heap-buffer-overflow")
        print("Test unit written to ./crash-1")
        sys.exit(1)
    runs = int(args["runs"])
    replay = int(os.environ.get("FAKE_REPLAY", "0"))
    ran = max(runs, replay) if runs >= 0 else 777
    if str(call) == os.environ.get("FAKE_SHORT_AT"):
        ran = runs // 2  # -max_total_time ended it first
    print(f"#{ran}\\tpulse  cov: {40 + call} ft: 100 corp: 3/10b exec/s: 100 rss: 30Mb")
    print(f"Done {ran} runs in 0 second(s)")
    print(f"stat::number_of_executed_units: {ran}")
    """
)


@pytest.fixture
def fuzz(tmp_path):
    build = tmp_path / "build"
    (build / "bin").mkdir(parents=True)
    fake = build / "bin" / "fuzz_fake"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    calls = tmp_path / "calls"

    def run(*args, **env):
        full = dict(os.environ, FUZZ_NO_BUILD="1", BUILD_DIR=str(build), FAKE_CALLS=str(calls),
                    FUZZ_TMPDIR=str(tmp_path))
        full.update({k: str(v) for k, v in env.items()})
        p = subprocess.run(["bash", str(SOURCE / "scripts" / "fuzz.sh"), *args, "fake"], env=full,
                           capture_output=True, text=True, timeout=120)
        made = [line.split() for line in calls.read_text().splitlines()] if calls.exists() else []
        return p, [(int(r), int(s)) for r, s in made]

    return run


def test_a_long_run_goes_in_rounds_whose_counts_add_up(fuzz):
    p, calls = fuzz("--bench", FUZZ_RUNS=25000, FUZZ_ROUND_RUNS=10000, FUZZ_SECONDS=100)
    assert p.returncode == 0, p.stderr
    assert [r for r, _ in calls] == [10000, 10000, 5000]
    assert "fuzz_fake: 25000 executions, 43 edges" in p.stdout
    assert all(0 < s <= 100 for _, s in calls)


def test_a_round_that_replays_a_large_corpus_counts_what_ran(fuzz):
    p, calls = fuzz("--bench", FUZZ_RUNS=5000, FUZZ_ROUND_RUNS=3000, FAKE_REPLAY=4000)
    assert p.returncode == 0, p.stderr
    assert [r for r, _ in calls] == [3000, 1000]
    assert "fuzz_fake: 8000 executions" in p.stdout


def test_ci_runs_one_process_for_its_time(fuzz):
    p, calls = fuzz(FUZZ_SECONDS=30, FUZZ_ROUND_RUNS=10)
    assert p.returncode == 0, p.stderr
    assert calls == [(-1, 30)]
    assert "fuzz_fake: 777 executions" in p.stdout


def test_a_failing_round_ends_the_run_and_fails_the_script(fuzz):
    p, calls = fuzz("--bench", FUZZ_RUNS=50000, FUZZ_ROUND_RUNS=10000, FAKE_FAIL_AT=2)
    assert p.returncode == 1
    assert len(calls) == 2
    assert "fuzz_fake: 10000+? executions" in p.stdout and "exit 1" in p.stdout
    assert "heap-buffer-overflow" in p.stderr and "add it to tests/fuzz/regressions/" in p.stderr


def test_a_round_cut_short_by_the_time_limit_is_the_last(fuzz):
    p, calls = fuzz("--bench", FUZZ_RUNS=50000, FUZZ_ROUND_RUNS=10000, FAKE_SHORT_AT=2)
    assert p.returncode == 0, p.stderr
    assert len(calls) == 2
    assert "fuzz_fake: 15000 executions" in p.stdout


@pytest.mark.parametrize("bad", ["0", "abc", "-5", "1e5"])
def test_a_bad_round_size_is_refused_before_anything_runs(fuzz, bad):
    p, calls = fuzz("--bench", FUZZ_ROUND_RUNS=bad)
    assert p.returncode == 2
    assert f"FUZZ_ROUND_RUNS={bad}: give a whole number of executions above 0" in p.stderr
    assert calls == []
