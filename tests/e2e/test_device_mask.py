"""Inherited visibility masks and --devices lists (issue 10.2, 10.3, 11.15): the real zl binary with
the fake vendor tools (tests/fixtures/fake_smi) on PATH and the probe corpus."""
import csv
import json

import pytest

from conftest import SOURCE_DIR

CORPUS = SOURCE_DIR / "corpus"
PROBE = SOURCE_DIR / "tests" / "fixtures" / "flaggems_probe"
PYTHON = "/usr/bin/python3"

GPU0 = "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c"
GPU1 = "GPU-a4b7c0d3-2e5f-4a8b-b1c4-7d0e3f6a9b2c"


def plan(zl, backend, *args, env=None):
    return zl.json("--backend", backend, "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON,
                   "--json", *args, env=env)


def statuses(out):
    with open(out / "ops_status.csv", newline="") as f:
        return list(csv.DictReader(f))


# --- item 2: an inherited mask is honoured, shown, recorded and never widened ---------------------

def test_cuda_uuid_mask_pins_the_gpu_it_names(zl):
    zl.with_smi("nvidia-smi")
    data = plan(zl, "cuda", env={"CUDA_VISIBLE_DEVICES": GPU1})
    assert data["device"]["index"] == 1 and data["device"]["uuid"] == GPU1
    assert data["env_set"]["CUDA_VISIBLE_DEVICES"] == GPU1


def test_cuda_index_mask_and_uuid_prefix(zl):
    zl.with_smi("nvidia-smi")
    assert plan(zl, "cuda", env={"CUDA_VISIBLE_DEVICES": "1"})["env_set"]["CUDA_VISIBLE_DEVICES"] == GPU1
    assert plan(zl, "cuda", env={"CUDA_VISIBLE_DEVICES": "GPU-a4b7"})["device"]["uuid"] == GPU1


def test_a_mig_entry_pins_the_slice_never_the_whole_gpu(zl):
    zl.with_smi("nvidia-smi")
    mig = f"MIG-{GPU1}/1/0"
    data = plan(zl, "cuda", env={"CUDA_VISIBLE_DEVICES": mig})
    assert data["device"]["uuid"] == GPU1 and data["env_set"]["CUDA_VISIBLE_DEVICES"] == mig


def test_ascend_logic_id_mask_pins_that_chip(zl):
    zl.with_smi("npu-smi")
    data = plan(zl, "ascend", env={"ASCEND_RT_VISIBLE_DEVICES": "1"})
    assert data["device"]["index"] == 1
    assert data["env_set"]["ASCEND_RT_VISIBLE_DEVICES"] == "1"


def test_musa_index_mask_pins_that_gpu(zl):
    zl.with_smi("mthreads-gmi")
    data = plan(zl, "musa", env={"MUSA_VISIBLE_DEVICES": "1"})
    assert data["device"]["index"] == 1 and data["env_set"]["MUSA_VISIBLE_DEVICES"] == "1"


def test_rocm_hip_level_mask_is_honoured_though_zl_unsets_it(zl):
    zl.with_smi("amd-smi")
    # GPU 0 has the serial 0x5C88007D760374F3; GPU 1 has none (N/A) in the constructed fixture.
    data = plan(zl, "rocm", env={"HIP_VISIBLE_DEVICES": "0"})
    assert data["device"]["index"] == 0
    assert data["env_set"]["ROCR_VISIBLE_DEVICES"] == "GPU-5c88007d760374f3"
    assert "HIP_VISIBLE_DEVICES" in data["env_unset"]
    # HIP indices count what ROCR left: ROCR=1,0 then HIP=1 is GPU 0.
    data = plan(zl, "rocm", env={"ROCR_VISIBLE_DEVICES": "1,0", "HIP_VISIBLE_DEVICES": "1"})
    assert data["device"]["index"] == 0
    # A GPU without a ROCr UUID cannot be pinned inside a mask: an index pin would escape the HIP mask.
    proc = zl.run("--backend", "rocm", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON,
                  env={"HIP_VISIBLE_DEVICES": "1"}, check_rc=2)
    assert "GPU 1 has no ROCr UUID" in proc.stderr


def test_devices_says_which_are_visible_and_the_mask(zl):
    zl.with_smi("nvidia-smi")
    data = zl.json("--backend", "cuda", "devices", "--json", env={"CUDA_VISIBLE_DEVICES": GPU1})
    assert data["inherited_mask"] == f"CUDA_VISIBLE_DEVICES={GPU1}"
    assert [d["visible"] for d in data["devices"]] == [False, True]
    assert data["devices"][1]["pin"] == GPU1 and data["devices"][0]["pin"] is None
    text = zl.run("--backend", "cuda", "devices", env={"CUDA_VISIBLE_DEVICES": GPU1}, check_rc=0).stdout
    assert f"inherited mask CUDA_VISIBLE_DEVICES={GPU1}: 1 of 2 devices visible" in text
    assert "VISIBLE" in text
    unmasked = zl.json("--backend", "cuda", "devices", "--json")
    assert unmasked["inherited_mask"] is None and all(d["visible"] for d in unmasked["devices"])


def test_an_invalid_entry_ends_the_list_as_cuda_reads_it(zl):
    zl.with_smi("nvidia-smi")
    data = zl.json("--backend", "cuda", "devices", "--json", env={"CUDA_VISIBLE_DEVICES": "1,bogus,0"})
    assert [d["visible"] for d in data["devices"]] == [False, True]
    assert "entry 2 'bogus'" in data["mask_note"] and "CUDA stops reading the list there" in data["mask_note"]
    proc = zl.run("--backend", "cuda", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON,
                  env={"CUDA_VISIBLE_DEVICES": "1,bogus,0"}, check_rc=0)
    assert "zl: note: the inherited mask CUDA_VISIBLE_DEVICES=1,bogus,0: CUDA_VISIBLE_DEVICES entry 2 'bogus'" \
        in proc.stderr
    # CANN stops at the first descending ID as well.
    zl.with_smi("npu-smi")
    data = zl.json("--backend", "ascend", "devices", "--json", env={"ASCEND_RT_VISIBLE_DEVICES": "1,0"})
    assert [d["visible"] for d in data["devices"]] == [False, True]
    assert "does not ascend" in data["mask_note"]


def test_an_empty_mask_hides_everything_and_run_refuses(zl):
    zl.with_smi("nvidia-smi")
    proc = zl.run("--backend", "cuda", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON,
                  env={"CUDA_VISIBLE_DEVICES": ""}, check_rc=2)
    assert "the inherited mask CUDA_VISIBLE_DEVICES= hides every one" in proc.stderr


def test_a_device_outside_the_mask_is_refused_naming_the_variable(zl):
    zl.with_smi("nvidia-smi")
    env = {"CUDA_VISIBLE_DEVICES": GPU1}
    proc = zl.run("--backend", "cuda", "plan", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON,
                  "--device", "0", env=env, check_rc=2)
    assert "outside the visibility mask" in proc.stderr and "CUDA_VISIBLE_DEVICES" in proc.stderr
    proc = zl.run("--backend", "cuda", "batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON,
                  "--devices", "0", env=env, check_rc=2)
    assert "--devices 0: device 0" in proc.stderr and "CUDA_VISIBLE_DEVICES" in proc.stderr


def test_batch_devices_all_means_the_visible_ones(zl, tmp_path):
    zl.with_smi("nvidia-smi")
    out = tmp_path / "campaign"
    proc = zl.run("--backend", "cuda", "batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON,
                  "--devices", "all", "--out", str(out), env={"CUDA_VISIBLE_DEVICES": GPU1})
    assert proc.returncode in (0, 1), proc.stderr
    rows = statuses(out)
    assert [r["device_uuid"] for r in rows] == [GPU1]
    assert "/ 1 devices" in proc.stderr


def test_run_identity_records_the_inherited_mask(zl, tmp_path):
    zl.with_smi("nvidia-smi")
    out = tmp_path / "run"
    zl.run("--backend", "cuda", "run", "--flaggems", str(PROBE), "--op", "probe", "--python", PYTHON, "--out",
           str(out), env={"CUDA_VISIBLE_DEVICES": GPU1})
    ident = json.loads((out / "run_identity.json").read_text())
    assert ident["device"]["inherited_mask"] == f"CUDA_VISIBLE_DEVICES={GPU1}"
    assert ident["device"]["visibility_value"] == GPU1
    out2 = tmp_path / "run2"
    zl.run("--backend", "cuda", "run", "--flaggems", str(PROBE), "--op", "probe", "--python", PYTHON, "--out",
           str(out2))
    assert json.loads((out2 / "run_identity.json").read_text())["device"]["inherited_mask"] is None


# --- item 3: one device twice, and an empty list ----------------------------------------------------

def test_the_same_device_twice_is_refused(zl, tmp_path):
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON, "--devices", "0,0",
                  "--out", str(tmp_path / "c"), check_rc=2)
    assert "--devices: device 0 is listed twice" in proc.stderr
    zl.with_smi("nvidia-smi")
    proc = zl.run("--backend", "cuda", "batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON,
                  "--devices", f"1,{GPU1}", "--out", str(tmp_path / "d"), check_rc=2)
    assert f"device {GPU1} is listed twice ('1' and '{GPU1}' are both device 1" in proc.stderr


@pytest.mark.parametrize("devices", [",,", "", "0,,1"])
def test_an_empty_device_list_is_refused(zl, tmp_path, devices):
    proc = zl.run("batch", "--flaggems", str(PROBE), "--ops", "probe", "--python", PYTHON, "--devices", devices,
                  "--out", str(tmp_path / "c"), check_rc=2)
    assert f"--devices '{devices}'" in proc.stderr
    assert not (tmp_path / "c").exists()
