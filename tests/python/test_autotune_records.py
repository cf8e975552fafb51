"""zl_autotune_records: key identity, named fields, config matching, file names, loading."""
import json

import pytest

import zl_autotune_records as records


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, maxnreg=None):
        self.kwargs, self.num_warps, self.num_stages, self.maxnreg = kwargs, num_warps, num_stages, maxnreg


def test_keys_are_matched_by_their_exact_json_form():
    assert records.key_id((1, 2.0, "torch.float16", True, None)) == '[1,2.0,"torch.float16",true,null]'
    assert records.key_id([1, 2]) == records.key_id((1, 2))
    assert records.key_id((1,)) != records.key_id((1.0,)) != records.key_id(("1",))
    assert records.jsonable(object.__new__(Config)).keys() == {"repr"}


def test_key_fields_name_the_tuners_keys_then_the_dtypes():
    assert records.key_fields(["M", "N"], (32, 64, "torch.float16", "torch.float16")) == {
        "M": 32, "N": 64, "dtype_0": "torch.float16", "dtype_1": "torch.float16"}
    assert records.key_text(["M"], (32, "torch.bfloat16")) == "M:32,dtype_0:torch.bfloat16"


def test_a_config_matches_on_kwargs_and_the_options_both_sides_have():
    recorded = records.config_dict(Config({"BLOCK": 64}, num_warps=8))
    assert recorded == {"kwargs": {"BLOCK": 64}, "num_warps": 8, "num_stages": 3, "maxnreg": None}
    assert records.same_config(Config({"BLOCK": 64}, num_warps=8), recorded)
    assert not records.same_config(Config({"BLOCK": 64}, num_warps=4), recorded)
    assert not records.same_config(Config({"BLOCK": 32}, num_warps=8), recorded)
    assert records.same_config(Config({"BLOCK": 64}, num_warps=8, maxnreg=128), recorded)


def test_file_names_are_safe_unique_and_never_the_manifest():
    taken = set()
    assert records.safe_file_name("pkg.mod.kernel", taken) == "pkg.mod.kernel.json"
    assert records.safe_file_name("pkg.mod.kernel", taken) == "pkg.mod.kernel-2.json"
    assert records.safe_file_name("a/b c<lambda>", taken) == "a_b_c_lambda_.json"
    assert records.safe_file_name("manifest", taken) == "manifest-2.json"
    long = records.safe_file_name("k" * 300, taken)
    assert len(long) <= records._MAX_NAME + len(".json")


def test_write_then_load_round_trips(tmp_path):
    doc = {"schema": 1, "kernel": "m.k", "key_fields": ["N"],
           "entries": [{"key": [64, "torch.float16"], "config": {"kwargs": {"B": 8}}}]}
    target = records.write_records(tmp_path / "run" / "autotune_records", {"m.k": doc}, {"op": "x"})
    assert sorted(p.name for p in target.iterdir()) == ["m.k.json", "manifest.json"]
    assert [p.name for p in target.parent.iterdir()] == ["autotune_records"]  # no temporary left
    folder, by_kernel, _ = records.load_records(tmp_path / "run")
    assert folder == target
    assert by_kernel["m.k"][records.key_id((64, "torch.float16"))]["config"]["kwargs"] == {"B": 8}


def test_loading_names_the_file_that_cannot_be_used(tmp_path):
    (tmp_path / "k.json").write_text(json.dumps({"schema": 2}))
    with pytest.raises(records.RecordsError, match="k.json: schema must be 1"):
        records.load_records(tmp_path)
    (tmp_path / "k.json").write_text(json.dumps({"schema": 1, "kernel": "k", "entries": [{}]}))
    with pytest.raises(records.RecordsError, match=r"entries\[0\] needs 'key' and 'config'"):
        records.load_records(tmp_path)
