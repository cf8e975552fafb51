"""zl calibrate on the host backend, through the host's real torch (python3-torch): measured once,
kept per device and driver, measured again on --force or when what is kept cannot be read, and
clear errors for an interpreter without torch, a missing one, bad sizes and a folder it cannot
write."""
import json
import os

PYTHON = "/usr/bin/python3"
SMALL = ("--copy-mib", "8", "--gemm-n", "128")


def calibrate(zl, tmp_path, *args, check_rc=0):
    env = {"ZL_CALIBRATION_DIR": str(tmp_path / "cal")}
    proc = zl.run("calibrate", "--python", PYTHON, *SMALL, "--json", *args, env=env, check_rc=check_rc)
    return json.loads(proc.stdout) if check_rc == 0 else proc


def test_measured_once_then_kept(zl, tmp_path):
    first = calibrate(zl, tmp_path)
    assert first["stored"] is False and first["backend"] == "cpu" and first["uuid"].startswith("host-")
    assert first["driver"] == os.uname().release  # the cpu backend's telemetry: the kernel release
    assert first["copy_bytes"] == 8 << 20 and first["copy_gbps"] > 0.1
    assert first["gemm_n"] == 128 and first["gemm_dtype"] == "float32" and first["gemm_tflops"] > 0
    assert first["torch"] and "best of 5 rounds" in first["method"]
    kept = tmp_path / "cal" / f"{first['uuid']}--{first['driver']}.json"
    assert first["file"] == str(kept) and kept.is_file()
    again = calibrate(zl, tmp_path)
    assert again["stored"] is True and again["measured_at"] == first["measured_at"]
    assert again["copy_gbps"] == first["copy_gbps"]
    assert calibrate(zl, tmp_path, "--force")["stored"] is False
    text = zl.run("calibrate", "--python", PYTHON, env={"ZL_CALIBRATION_DIR": str(tmp_path / "cal")},
                  check_rc=0).stdout
    assert "kept, measured" in text and "GB/s" in text and "TFLOPS" in text and "(--force measures again)" in text


def test_what_cannot_be_read_is_measured_again(zl, tmp_path):
    first = calibrate(zl, tmp_path)
    with open(first["file"], "w") as f:
        f.write('{"copy_gbps": "fast"')
    proc = zl.run("calibrate", "--python", PYTHON, *SMALL, "--json", env={"ZL_CALIBRATION_DIR": str(tmp_path / "cal")},
                  check_rc=0)
    assert "not a calibration of zl's; measuring again" in proc.stderr
    assert json.loads(proc.stdout)["stored"] is False
    assert json.loads(open(first["file"]).read())["copy_gbps"] > 0


def test_an_interpreter_without_torch_is_named(zl, tmp_path):
    no_site = tmp_path / "python-no-site"
    no_site.write_text(f'#!/bin/sh\nexec {PYTHON} -S "$@"\n')  # -S: no dist-packages, so no torch
    no_site.chmod(0o755)
    proc = zl.run("calibrate", "--python", str(no_site), *SMALL, env={"ZL_CALIBRATION_DIR": str(tmp_path / "cal")})
    assert proc.returncode == 2
    assert "torch cannot be imported" in proc.stderr and "pass --python with an interpreter that has torch" in proc.stderr
    assert not (tmp_path / "cal").exists()
    proc = zl.run("calibrate", "--python", str(tmp_path / "nowhere"), *SMALL,
                  env={"ZL_CALIBRATION_DIR": str(tmp_path / "cal")})
    assert proc.returncode == 2 and "nowhere" in proc.stderr


def test_bad_sizes_and_an_unwritable_folder(zl, tmp_path):
    for option in (("--copy-mib", "0"), ("--gemm-n", "-3"), ("--gemm-n", "100000")):
        proc = zl.run("calibrate", "--python", PYTHON, *option)
        assert proc.returncode == 2 and f"{option[0]} {option[1]}: give a whole number" in proc.stderr
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = zl.run("calibrate", "--python", PYTHON, *SMALL, env={"ZL_CALIBRATION_DIR": str(blocker / "cal")})
    assert proc.returncode == 2 and "cannot keep it in" in proc.stderr and "ZL_CALIBRATION_DIR" in proc.stderr
