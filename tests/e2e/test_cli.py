"""The zl command line: help, version, the subcommand table, backends listing, errors."""
import json
import os


def test_version_names_the_abi(zl):
    out = zl.run("--version", check_rc=0).stdout
    assert out.startswith("zl ")
    assert "(backend ABI 1.3)" in out


def test_help_teaches_examples_and_exit_codes(zl):
    out = zl.run("--help", check_rc=0).stdout
    for text in ("Usage: zl [--backend NAME]", "Examples:", "Exit codes:", "backends", "devices",
                 "ZL_BACKEND_PATH", "3  preflight failure"):
        assert text in out


def test_no_command_prints_usage_and_exits_2(zl):
    proc = zl.run(check_rc=2)
    assert "Usage: zl" in proc.stderr


def test_typo_suggests_the_command(zl):
    proc = zl.run("backend", check_rc=2)
    assert "unknown command 'backend' (did you mean 'backends'?)" in proc.stderr


def test_unknown_option_is_refused(zl):
    proc = zl.run("backends", "--jsn", check_rc=2)
    assert "zl backends: unrecognised option '--jsn'" in proc.stderr
    proc = zl.run("--bakend=cuda", "devices", check_rc=2)
    assert "`zl --help` lists the global options" in proc.stderr


def test_command_help(zl):
    out = zl.run("devices", "--help", check_rc=0).stdout
    assert "Usage: zl [--backend NAME] devices [--json]" in out


def test_backends_lists_all_five_from_the_build_tree(zl):
    data = zl.json("backends", "--json")
    assert data["abi"] == "1.3"
    by_name = {b["name"]: b for b in data["backends"]}
    assert set(by_name) >= {"cpu", "cuda", "musa", "rocm", "ascend"}
    for name in ("cpu", "cuda", "musa", "rocm", "ascend"):
        assert by_name[name]["state"] == "loaded", by_name[name]
        assert by_name[name]["abi"] == "1.3"
        assert by_name[name]["path"].endswith(f"libzl_backend_{name}.so")
    assert by_name["cuda"]["aliases"] == ["nvidia"]
    assert by_name["musa"]["aliases"] == ["mthreads", "moore"]
    assert "graph_capture" in by_name["cuda"]["capabilities"]
    assert "host_fallback" in by_name["cpu"]["capabilities"]
    # The spec-peak tables (ABI 1.3): each spelling of a SKU is an entry; none where no sheet is cited.
    assert by_name["cuda"]["peaks"] == 18 and by_name["rocm"]["peaks"] == 8
    assert by_name["musa"]["peaks"] == by_name["ascend"]["peaks"] == by_name["cpu"]["peaks"] == 0


def test_backends_shows_failed_modules_with_reasons(zl, module_dir):
    module_dir.add("fakegpu")
    abimajor = module_dir.add("abimajor")
    text = module_dir / "libzl_backend_text.so"
    text.write_text("not a library\n")
    proc = zl.run("--backend-path", str(module_dir), "backends", check_rc=0)
    assert f"abimajor failed: {abimajor}: speaks backend ABI 2.3, but this zl speaks 1.3" in proc.stdout
    assert f"text failed: {text}: not a shared object (no ELF header)" in proc.stdout
    assert f"searched: {module_dir} (--backend-path)" in proc.stdout
    data = zl.json("--backend-path", str(module_dir), "backends", "--json")
    states = {b["name"]: b["state"] for b in data["backends"]}
    assert states["fakegpu"] == "loaded"
    assert states["abimajor"] == "failed"
    assert data["search_path"][0] == {"path": str(module_dir), "origin": "--backend-path"}


def test_backends_counts_spec_peaks_and_dashes_a_module_before_abi_1_3(zl, module_dir):
    module_dir.add("peakgpu")
    module_dir.add("abi12gpu")
    lines = zl.run("--backend-path", str(module_dir), "backends", check_rc=0).stdout.splitlines()
    header = lines[0].split()
    assert header[:7] == ["NAME", "ALIASES", "VERSION", "ABI", "TELEMETRY", "PEAKS", "STATE"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line.strip()}
    assert rows["peakgpu"][3:6] == ["1.3", "no", "2"]
    assert rows["abi12gpu"][3:6] == ["1.2", "no", "-"]
    data = zl.json("--backend-path", str(module_dir), "backends", "--json")
    peaks = {b["name"]: b["peaks"] for b in data["backends"]}
    assert peaks["peakgpu"] == 2 and peaks["abi12gpu"] is None


def test_requesting_a_broken_backend_names_file_reason_and_folders(zl, module_dir):
    path = module_dir.add("missingdep")
    proc = zl.run("--backend-path", str(module_dir), "--backend", "missingdep", "devices", check_rc=2)
    assert f"backend 'missingdep' (from --backend) cannot be used: {path}: needs libzl_test_missing.so" in proc.stderr
    assert f"searched: {module_dir} (--backend-path)" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_zl_backend_variable_and_option_precedence(zl, module_dir):
    module_dir.add("fakegpu")
    module_dir.add("othergpu")
    env = {"ZL_BACKEND_PATH": str(module_dir), "ZL_BACKEND": "othergpu"}
    assert zl.json("devices", "--json", env=env)["backend"] == "othergpu"
    data = zl.json("--backend", "fg", "devices", "--json", env=env)
    assert data["backend"] == "fakegpu"
    assert data["selected_by"] == "--backend"
    assert [d["uuid"] for d in data["devices"]] == ["TEST-fakegpu-0", "TEST-fakegpu-1"]


def test_missing_backend_path_is_an_error(zl, tmp_path):
    proc = zl.run("--backend-path", str(tmp_path / "nope"), "backends", check_rc=2)
    assert f"backend folder {tmp_path / 'nope'} (from --backend-path) is not a folder that exists" in proc.stderr
    proc = zl.run("backends", env={"ZL_BACKEND_PATH": str(tmp_path / "gone")}, check_rc=2)
    assert "(from ZL_BACKEND_PATH) is not a folder that exists" in proc.stderr


def test_group_writable_module_is_refused(zl, module_dir):
    path = module_dir.add("fakegpu")
    os.chmod(path, 0o775)
    proc = zl.run("--backend-path", str(module_dir), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"refused: the file {path} is writable by its group (mode 0775)" in proc.stderr
    assert f"chmod go-w {path}" in proc.stderr


def test_no_accelerator_uses_the_host_backend_and_says_why(zl):
    proc = zl.run("devices", "--json", check_rc=0)
    data = json.loads(proc.stdout)
    assert data["backend"] == "cpu"
    assert data["selected_by"].startswith("no accelerator backend found devices (")
    assert "nvidia-smi" in data["selected_by"]
    assert proc.stderr.startswith("zl: using backend cpu: no accelerator backend found devices")
    assert len(data["devices"]) == 1 and data["devices"][0]["uuid"].startswith("host-")
