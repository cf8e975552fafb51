# shellcheck shell=bash
# What scripts/fuzz.sh and scripts/device/fuzz_workers.sh share, so that both fuzz a target alike:
# each target's dictionary, and the rounds a long run goes in.

# The dictionary (tests/fuzz/dict/<name>.dict) of each fuzz target that has one.
# shellcheck disable=SC2034
declare -A dict=([table_parser]=flaggems_log [record_log]=flaggems_log [run_folder]=json [receipt]=json
  [campaign_json]=json [markers]=markers [ops_status]=ops_status [shape_yaml]=yaml [py_tokenizer]=python
  [py_module]=python [class_chain]=python [nvidia_smi]=smi [mthreads_gmi]=smi [amd_smi]=smi [rocm_smi]=smi
  [npu_smi]=smi)

# A long run goes in rounds, each a fresh process on the same corpus. ASan's stack depot keeps
# every allocation stack it sees and never frees one; through libraries built without frame
# pointers (Debian's libyaml-cpp) its fast unwinder records junk frames, so nearly every stack is
# new: fuzz_shape_yaml's depot held 821-865 MB after 190,869 executions (2,125,869 ids in 15,000;
# 48,967 with the slow unwinder, 17x slower), and one process would pass -rss_limit_mb by about
# 400,000 and report an out-of-memory that is not zl's.
# fuzz_set_round NAME VALUE: the executions of a round, from the setting NAME.
fuzz_set_round() {
  [[ $2 =~ ^[1-9][0-9]*$ ]] || {
    echo "zl: $1=$2: give a whole number of executions above 0" >&2
    exit 2
  }
  fuzz_round=$2
}

# fuzz_rounds BINARY LOG RUNS SECONDS ARG...: runs BINARY ARG... (flags, then corpus folders) in
# rounds of fuzz_round until RUNS executions (below 0: one process) or SECONDS have passed, or a
# round fails; every round's output goes to LOG. Sets fuzz_execs (the rounds' sum; "+?" when the
# last round printed no count) and fuzz_rc (the failed round's exit status, else 0). A round
# replays the whole corpus first, so it may run more than it was asked to.
fuzz_rounds() {
  local binary=$1 log=$2 runs=$3 seconds=$4 start=$SECONDS n per
  shift 4
  fuzz_execs=0
  fuzz_rc=0
  : >"$log"
  while :; do
    per=$runs
    if [ "$runs" -ge 0 ]; then
      per=$((runs - fuzz_execs < fuzz_round ? runs - fuzz_execs : fuzz_round))
    fi
    "$binary" -max_total_time=$((seconds - (SECONDS - start))) -runs="$per" "$@" >"$log.round" 2>&1 || fuzz_rc=$?
    cat "$log.round" >>"$log"
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.round" | tail -1)
    rm -f "$log.round"
    fuzz_execs=$((fuzz_execs + ${n:-0}))
    if [ "$fuzz_rc" != 0 ] || [ -z "$n" ] || [ "$n" -lt "$per" ] || [ "$fuzz_execs" -ge "$runs" ] ||
      [ $((SECONDS - start)) -ge "$seconds" ]; then
      break
    fi
    echo "== round ends at $fuzz_execs executions" >>"$log"
  done
  [ -n "$n" ] || fuzz_execs="$fuzz_execs+?"
}

# fuzz_edges LOG: the coverage (edges) libFuzzer last printed in LOG, or ?.
fuzz_edges() {
  local e
  e=$(grep -ao 'cov: [0-9]*' "$1" | tail -1 | sed 's/cov: //')
  echo "${e:-?}"
}
