# The dictionary (tests/fuzz/dict/<name>.dict) of each fuzz target that has one; sourced by
# scripts/fuzz.sh and scripts/device/fuzz_workers.sh so that both fuzz a target alike.
# shellcheck disable=SC2034
declare -A dict=([table_parser]=flaggems_log [record_log]=flaggems_log [run_folder]=json [receipt]=json
  [campaign_json]=json [markers]=markers [ops_status]=ops_status [shape_yaml]=yaml [py_tokenizer]=python
  [py_module]=python [class_chain]=python [nvidia_smi]=smi [mthreads_gmi]=smi [amd_smi]=smi [rocm_smi]=smi
  [npu_smi]=smi)
