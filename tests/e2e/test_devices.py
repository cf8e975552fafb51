"""zl devices and automatic backend choice with the fake vendor tools (tests/fixtures/fake_smi) on PATH."""
import pytest

VENDORS = [
    # backend, tool, first uuid, visibility variable, first visibility id
    ("cuda", "nvidia-smi", "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c", "CUDA_VISIBLE_DEVICES",
     "GPU-3f6c2a1e-8b4d-4e2f-9a7c-1d5e6f7a8b9c"),
    ("musa", "mthreads-gmi", "7c1e0a52-93d4-4b6f-a1e8-0f2d5c8b9e31", "MUSA_VISIBLE_DEVICES", "0"),
    ("rocm", "amd-smi", "41ff74a1-0000-1000-80e5-5c88007d7603", "ROCR_VISIBLE_DEVICES", None),
    ("ascend", "npu-smi", "npu0-chip0", "ASCEND_RT_VISIBLE_DEVICES", "0"),
]


@pytest.mark.parametrize("backend, tool, uuid, variable, visibility_id", VENDORS)
def test_each_vendor_lists_its_devices_through_its_tool(zl, backend, tool, uuid, variable, visibility_id):
    zl.with_smi(tool)
    data = zl.json("--backend", backend, "devices", "--json")
    assert data["backend"] == backend and data["selected_by"] == "--backend"
    assert [d["index"] for d in data["devices"]] == [0, 1]
    assert data["devices"][0]["uuid"] == uuid
    assert data["devices"][0]["memory_bytes"] > 0
    assert data["visibility_var"] == variable
    if visibility_id is not None:
        assert data["devices"][0]["visibility_id"] == visibility_id
    assert tool.split("-")[0] in data["source"]


def test_aliases_select_the_same_backend(zl):
    zl.with_smi("mthreads-gmi")
    for alias in ("musa", "mthreads", "moore"):
        assert zl.json("--backend", alias, "devices", "--json")["backend"] == "musa"


def test_the_one_backend_with_devices_is_chosen_and_said_so(zl):
    zl.with_smi("nvidia-smi")
    proc = zl.run("devices", "--json", check_rc=0)
    assert proc.stderr.startswith("zl: using backend cuda: the only backend that found devices (2 via nvidia-smi)")


def test_two_backends_with_devices_refuse_to_guess(zl):
    zl.with_smi("nvidia-smi", "npu-smi")
    proc = zl.run("devices", check_rc=2)
    assert "several backends found devices: ascend (2 devices), cuda (2 devices); choose one with --backend" \
        in proc.stderr


def test_a_missing_tool_means_no_devices_because(zl):
    proc = zl.run("--backend", "cuda", "devices", check_rc=0)
    assert proc.stdout.startswith("backend cuda: no devices, because nvidia-smi not found on PATH")


@pytest.mark.parametrize("mode", ["fail", "garbage", "truncated"])
def test_a_broken_tool_is_an_error_that_quotes_it_never_a_crash(zl, mode):
    zl.with_smi("nvidia-smi")
    proc = zl.run("--backend", "cuda", "devices", env={"FAKE_SMI_MODE": mode}, check_rc=2)
    assert proc.stderr.startswith("zl: error: backend cuda could not list its devices: nvidia-smi")
    assert "libzl_backend_cuda.so" in proc.stderr


def test_musa_falls_back_from_the_csv_query_to_the_full_query(zl):
    zl.with_smi("mthreads-gmi")
    data = zl.json("--backend", "musa", "devices", "--json", env={"FAKE_SMI_MODE": "nocsv"})
    assert len(data["devices"]) == 2
    assert "-q" in data["source"]
