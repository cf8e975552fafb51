"""zl against hostile files and folders (issue 11): failed writes, unbounded reads, a deleted
working folder, receipts, paths from documents, file modes, stores, module permissions, echoes."""
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import BROKEN_DIR, SOURCE_DIR, ZL_BIN

CORPUS = SOURCE_DIR / "corpus"
PYTHON = "/usr/bin/python3"
NOBODY = 65534
TABLE = ("\nOperator: abs  Performance Test (dtype=torch.float16, mode=kernel,level=core)\n"
         "Status       Torch Latency (ms)    Gems Latency (ms)         Gems Speedup          Size Detail\n"
         "---------------------------------------------------------------------------------------------\n"
         "SUCCESS               0.010000            0.005000                2.000          [torch.Size([64])]\n\n")


def write_run(path, identity=None):
    """A run folder as zl run leaves it, as far as zl summary and zl receipt read it."""
    path.mkdir(parents=True)
    doc = {"schema": 1, "status": "ok", "backend": {"name": "cpu"}, "timer": {"effective": "direct"},
           "level": "core", "mode": "kernel", "node": {"op": "abs"}}
    doc.update(identity or {})
    (path / "run_identity.json").write_text(json.dumps(doc))
    (path / "run.log").write_text("ZL_RUN zl_version=0.1.0 backend=cpu timer=direct level=core\n" + TABLE)
    return path


def raw(zl, *args, cwd=None, timeout=30, **kw):
    """zl with control over the process: its working folder, descriptors, user, umask."""
    return subprocess.run([ZL_BIN, *args], env=zl.env, cwd=cwd, capture_output=kw.pop("capture", True),
                          text=True, timeout=timeout, **kw)


def to_full(zl, *args):
    with open("/dev/full", "w") as full:
        return subprocess.run([ZL_BIN, *args], env=zl.env, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=30)


# Item 6: every write checked.

def test_output_to_a_full_disk_is_an_error(zl, tmp_path):
    run = write_run(tmp_path / "run")
    zl.run("receipt", str(run), check_rc=0)
    for args in (["summary", str(run)], ["summary", str(run), "--format", "json"],
                 ["summary", str(run), "--format", "csv"], ["backends"], ["receipt", "--verify", str(run)],
                 ["--help"]):
        proc = to_full(zl, *args)
        assert proc.returncode == 74, (args, proc.stderr)
        assert "cannot write the output to standard output: No space left on device" in proc.stderr


def test_closed_stdout_is_an_error_and_takes_no_file(zl, tmp_path):
    run = write_run(tmp_path / "run")
    proc = subprocess.run([ZL_BIN, "backends"], env=zl.env, stderr=subprocess.PIPE, text=True, timeout=30,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 74
    assert "standard output: it is closed" in proc.stderr
    # The receipt zl writes must not land on descriptor 1 and take the output meant for it.
    proc = subprocess.run([ZL_BIN, "receipt", str(run)], env=zl.env, stderr=subprocess.PIPE, text=True,
                          timeout=30, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 74
    assert json.loads((run / "receipt.json").read_text())["results"]


# Item 8: reads bounded, only regular files.

@pytest.mark.parametrize("kind", ["devzero", "fifo", "huge"])
def test_identity_that_is_not_a_small_regular_file_is_refused(zl, tmp_path, kind):
    run = write_run(tmp_path / "run")
    identity = run / "run_identity.json"
    identity.unlink()
    if kind == "devzero":
        identity.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(identity)
    else:
        with open(identity, "wb") as f:
            f.truncate(17 << 20)
    expected = {"devzero": "it is a character device, not a regular file", "fifo": "it is a FIFO, not a regular file",
                "huge": "it is larger than 16.0 MiB"}[kind]
    proc = raw(zl, "summary", str(run))
    if kind == "devzero":  # a link out of the run folder: summaries skip it and say so (issue 10.17)
        assert proc.returncode == 0 and "resolves outside the run folder (to /dev/zero): not read" in proc.stderr
    else:
        assert proc.returncode == 2, proc.stderr
        assert f"cannot read {identity}: {expected}" in proc.stderr
    proc = raw(zl, "receipt", str(run))
    assert proc.returncode == 2 and expected in proc.stderr


def test_ops_file_that_never_ends_is_refused(zl, tmp_path):
    for ops in ("/dev/zero", str(tmp_path / "fifo")):
        if ops != "/dev/zero":
            os.mkfifo(ops)
        proc = raw(zl, "batch", "--ops-file", ops, "--flaggems", str(CORPUS), "--python", PYTHON, "--out",
                   str(tmp_path / "out"))
        assert proc.returncode == 2, proc.stderr
        assert f"cannot read {ops}: it is a" in proc.stderr


def test_fifo_or_loop_in_the_backends_folder_does_not_hang(zl, module_dir):
    module_dir.add("fakegpu")
    os.mkfifo(module_dir / "libzl_backend_fifo.so")
    (module_dir / "libzl_backend_loop.so").symlink_to(module_dir / "libzl_backend_loop.so")
    proc = raw(zl, "--backend-path", str(module_dir), "backends")
    assert proc.returncode == 0, proc.stderr
    assert "libzl_backend_fifo.so: is not a regular file" in proc.stdout
    assert "libzl_backend_loop.so: cannot stat" in proc.stdout and "Too many levels of symbolic links" in proc.stdout
    assert "fakegpu" in proc.stdout
    assert raw(zl, "--backend-path", str(module_dir), "--backend", "fakegpu", "devices").returncode == 0


def test_backends_folder_that_is_a_file(zl, tmp_path):
    folder = tmp_path / "file"
    folder.write_text("")
    proc = raw(zl, "--backend-path", str(folder), "backends")
    assert proc.returncode == 2
    assert f"backend folder {folder} (from --backend-path) is not a folder that exists" in proc.stderr


def test_receipt_entry_leading_to_a_fifo_or_a_device_does_not_hang(zl, tmp_path):
    run = write_run(tmp_path / "run")
    (run / "extra.log").write_text("x")
    zl.run("receipt", str(run), check_rc=0)
    (run / "extra.log").unlink()
    os.mkfifo(run / "extra.log")
    (run / "run.log").unlink()
    (run / "run.log").symlink_to("/dev/zero")
    proc = raw(zl, "receipt", "--verify", str(run))
    assert proc.returncode == 1, proc.stderr
    # Whole reasons, not cut to a digest's width.
    assert "unreadable result extra.log (receipt " in proc.stdout
    assert f"cannot read {run}/extra.log: it is a FIFO, not a regular file; zl reads only regular files" in proc.stdout
    assert "refused    result run.log" in proc.stdout and "leads to /dev/zero, outside" in proc.stdout


def test_receipt_json_that_is_a_fifo(zl, tmp_path):
    run = write_run(tmp_path / "run")
    os.mkfifo(run / "receipt.json")
    proc = raw(zl, "receipt", "--verify", str(run))
    assert proc.returncode == 2 and "receipt.json: it is a FIFO" in proc.stderr
    proc = raw(zl, "receipt", str(run))
    assert proc.returncode == 2 and "receipt.json exists already" in proc.stderr


# Item 9: a deleted working folder.

def test_deleted_working_folder(zl, tmp_path):
    run = write_run(tmp_path / "run")
    zl.run("receipt", str(run), check_rc=0)
    gone = tmp_path / "gone"
    # The child changes into the folder, which is removed before zl starts.
    def enter_and_remove():
        os.mkdir(gone)
        os.chdir(gone)
        os.rmdir(gone)
    for args in (["summary", str(run)], ["receipt", "--verify", str(run)], ["--backend", "cpu", "devices"]):
        proc = raw(zl, *args, preexec_fn=enter_and_remove)
        assert proc.returncode == 0, (args, proc.stderr)
    proc = raw(zl, "backends", preexec_fn=enter_and_remove)
    assert proc.returncode == 0 and "cpu" in proc.stdout and "no backend modules found" not in proc.stdout
    proc = raw(zl, "summary", "run", preexec_fn=enter_and_remove)
    assert proc.returncode == 2
    assert "the relative path run cannot be resolved: the working folder is gone" in proc.stderr
    for args in (["--backend-path", "mods", "backends"], ["summary", "--db", "s.db"], ["receipt", "run"]):
        proc = raw(zl, *args, preexec_fn=enter_and_remove)
        assert proc.returncode == 2 and "working folder is gone" in proc.stderr, (args, proc.stderr)


# Item 10: receipts are not overwritten; added runs fail the check.

def test_receipt_is_not_overwritten_without_force(zl, tmp_path):
    campaign = tmp_path / "campaign"
    write_run(campaign / "abs")
    zl.run("receipt", str(campaign), check_rc=0)
    first = (campaign / "receipt.json").read_text()
    proc = zl.run("receipt", str(campaign), check_rc=2)
    assert "receipt.json exists already" in proc.stderr and "--force" in proc.stderr
    assert (campaign / "receipt.json").read_text() == first
    proc = zl.run("receipt", "--force", str(campaign), check_rc=0)
    assert f"the previous one kept as {campaign}/receipt.json.1" in proc.stdout
    assert (campaign / "receipt.json.1").read_text() == first
    zl.run("receipt", "--force", str(campaign), check_rc=0)
    assert (campaign / "receipt.json.2").exists()
    assert "every digest matches" in zl.run("receipt", "--verify", str(campaign), check_rc=0).stdout


def test_verify_fails_when_a_run_was_added(zl, tmp_path):
    campaign = tmp_path / "campaign"
    write_run(campaign / "abs")
    zl.run("receipt", str(campaign), check_rc=0)
    write_run(campaign / "mul")
    proc = zl.run("receipt", "--verify", str(campaign), check_rc=1)
    assert "added      mul/run_identity.json (not in the receipt)" in proc.stdout
    assert "2 mismatches" in proc.stdout


# Item 11: paths from documents stay inside their folder.

def test_receipt_entries_outside_the_folder_are_refused_unread(zl, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("password\n")
    run = write_run(tmp_path / "campaign" / "run")
    zl.run("receipt", str(run), check_rc=0)
    receipt = json.loads((run / "receipt.json").read_text())
    receipt["results"].append({"role": "result", "path": "../../secret", "sha256": "0" * 64})
    receipt["results"].append({"role": "result", "path": str(secret), "sha256": "0" * 64})
    receipt["harness"].append({"role": "zl", "path": str(secret), "sha256": "0" * 64})
    receipt["harness"].append({"role": "\x1b[2J" * 100, "path": "/x", "sha256": "\x1b[2J"})
    (run / "receipt.json").write_text(json.dumps(receipt))
    proc = zl.run("receipt", "--verify", str(run), check_rc=1)
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    assert digest[:16] not in proc.stdout
    assert "refused    result ../../secret" in proc.stdout and "outside" in proc.stdout
    assert f"refused    zl {secret}" in proc.stdout and "is not a file that a run's identity or plan" in proc.stdout
    assert "\x1b" not in proc.stdout and "refused    \\x1b[2J" in proc.stdout


def test_record_log_named_by_an_identity_stays_inside_the_run(zl, tmp_path):
    outside = tmp_path / "record.log"
    outside.write_text("[INFO] {}\n")
    run = write_run(tmp_path / "campaign" / "run", {"record_log": "../../record.log"})
    # Not read, and said (tests/e2e/test_summary_counting.py has the rows' side of it).
    proc = zl.run("summary", str(run))
    assert "record_log ../../record.log resolves outside the run folder" in proc.stderr and "not read" in proc.stderr
    link_run = write_run(tmp_path / "campaign" / "link")
    (link_run / "record.log").symlink_to(outside)
    assert "resolves outside the run folder" in zl.run("summary", str(link_run)).stderr


# Item 12: files follow the umask.

def test_run_files_follow_the_umask(zl, tmp_path):
    run = tmp_path / "run"
    proc = raw(zl, "run", "--flaggems", str(CORPUS), "--op", "abs", "--python", PYTHON, "--out", str(run),
               timeout=120, preexec_fn=lambda: os.umask(0o027))
    assert proc.returncode == 0, proc.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in run.iterdir() if p.is_file()}
    assert modes["python_versions.json"] == 0o640
    assert modes["run_identity.json"] == 0o640 and modes["plan.json"] == 0o640
    assert set(modes.values()) == {0o640}, modes


# Item 13: stores.

def nobody_folder():
    """A folder under /tmp that user nobody can reach (pytest's tmp_path is private to root)."""
    path = tempfile.mkdtemp(prefix="zl-ro-")
    os.chmod(path, 0o755)
    return path


def test_store_in_a_folder_the_user_cannot_write_is_read(zl):
    folder = nobody_folder()
    try:
        run = write_run(Path(folder) / "run")
        store = Path(folder) / "store"
        store.mkdir()
        db = str(store / "s.db")
        zl.run("summary", str(run), "--db", db, check_rc=0)
        os.chmod(store, 0o555)
        os.chmod(db, 0o644)
        proc = raw(zl, "summary", "--db", db, "--format", "json", user=NOBODY, cwd="/")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["total"]["rows"] == 1
        # Writing into it still fails, naming the file.
        proc = raw(zl, "summary", str(run), "--db", db, user=NOBODY, cwd="/")
        assert proc.returncode == 2 and f"cannot write the results store {db}" in proc.stderr
    finally:
        shutil.rmtree(folder)


def test_store_with_a_foreign_schema(zl, tmp_path):
    for version in (0, 1):
        db = tmp_path / f"foreign-{version}.db"
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE runs (x)")
            con.execute(f"PRAGMA user_version = {version}")
        proc = zl.run("summary", "--db", str(db), check_rc=2)
        assert f"{db} is not a zl results store (or one zl cannot migrate)" in proc.stderr
        assert "already exists" not in proc.stderr and "no such column" not in proc.stderr


# Item 14: the loader's permission promise.

def test_link_to_a_module_in_a_world_writable_folder_is_refused(zl, module_dir, tmp_path):
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    shutil.copy(BROKEN_DIR / "libzl_backend_fakegpu.so", open_dir / "libzl_backend_fakegpu.so")
    os.chmod(open_dir, 0o777)
    (module_dir / "libzl_backend_fakegpu.so").symlink_to(open_dir / "libzl_backend_fakegpu.so")
    proc = zl.run("--backend-path", str(module_dir), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"the folder {open_dir} is writable by group and others (mode 0777)" in proc.stderr


def test_safe_folder_inside_a_world_writable_one_is_refused(zl, tmp_path):
    parent = tmp_path / "open"
    parent.mkdir()
    inner = parent / "modules"
    inner.mkdir(mode=0o755)
    shutil.copy(BROKEN_DIR / "libzl_backend_fakegpu.so", inner / "libzl_backend_fakegpu.so")
    os.chmod(parent, 0o777)
    proc = zl.run("--backend-path", str(inner), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"the folder {parent} is writable by group and others (mode 0777)" in proc.stderr
    # Sticky, like /tmp: safe for an entry that you or root own, not for another user's.
    os.chmod(parent, 0o1777)
    zl.run("--backend-path", str(inner), "--backend", "fakegpu", "devices", check_rc=0)
    os.chown(inner, NOBODY, NOBODY)
    proc = zl.run("--backend-path", str(inner), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"the folder {inner} belongs to user {NOBODY}, neither you nor root" in proc.stderr


def test_module_owned_by_another_user_is_refused(zl, module_dir):
    path = module_dir.add("fakegpu")
    os.chown(path, NOBODY, NOBODY)
    proc = zl.run("--backend-path", str(module_dir), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"the file {path} belongs to user {NOBODY}, neither you nor root" in proc.stderr
    os.chown(path, 0, 0)
    os.chown(module_dir.path, NOBODY, NOBODY)
    proc = zl.run("--backend-path", str(module_dir), "--backend", "fakegpu", "devices", check_rc=2)
    assert f"the folder {module_dir} belongs to user {NOBODY}" in proc.stderr


# Item 15: what is echoed is quoted and cut.

def test_echoed_backend_names_are_escaped_and_cut(zl):
    for name, shown in (("\x1b[31mred", "\\x1b[31mred"), ("\ufeffcpu", "\\ufeffcpu"),
                        ("a\u202eb", "a\\u202eb"), ("\x01\x7f", "\\x01\\x7f")):
        proc = zl.run("--backend", name, "devices", check_rc=2)
        assert f"backend '{shown}' (from --backend) is not a backend name" in proc.stderr
        assert "\x1b" not in proc.stderr and "\ufeff" not in proc.stderr and "\u202e" not in proc.stderr
    proc = zl.run("--backend", "x" * 10000, "devices", check_rc=2)
    assert len(proc.stderr) < 1000 and "\u2026(9936 more bytes)" in proc.stderr


def test_echoed_paths_are_escaped(zl, tmp_path):
    bad = tmp_path / "a\x1b[2Jb"
    bad.mkdir()
    os.mkfifo(bad / "ops")
    proc = zl.run("batch", "--ops-file", str(bad / "ops"), "--flaggems", str(CORPUS), "--python", PYTHON,
                  "--out", str(tmp_path / "out"), check_rc=2)
    assert "\x1b" not in proc.stderr and "a\\x1b[2Jb/ops: it is a FIFO" in proc.stderr


def test_identity_cannot_make_receipt_hash_any_file(zl, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("password\n")
    for identity in ({"zl_binary": str(secret)}, {"backend": {"name": "cpu", "module": str(secret)}},
                     {"zl_binary": "../secret"}):
        run = write_run(tmp_path / f"run{len(list(tmp_path.iterdir()))}", identity)
        proc = zl.run("receipt", str(run), check_rc=2)
        assert "name harness files that cannot be ones" in proc.stderr and "so no receipt is written" in proc.stderr
        assert not (run / "receipt.json").exists()
    run = write_run(tmp_path / "plan")
    (run / "plan.json").write_text(json.dumps({"env_set": {"PYTHONPATH": str(tmp_path)}, "plugins": [1, "../secret"],
                                               "shape_source": str(secret)}))
    proc = zl.run("receipt", str(run), check_rc=2)
    assert "plugin 1 (not a Python module name)" not in proc.stderr  # a number is not echoed as a name
    assert "plugin ../secret (not a Python module name)" in proc.stderr
    assert f"{secret} as shapes (a shape file is a .yaml file)" in proc.stderr


def test_deeply_nested_documents_do_not_crash(zl, tmp_path):
    run = write_run(tmp_path / "run")
    (run / "run_identity.json").write_text("[" * 2_000_000)
    proc = zl.run("summary", str(run), check_rc=0)
    assert "not a run identity" in proc.stderr
    assert f"{run}/run_identity.json is not valid JSON" in zl.run("receipt", str(run), check_rc=2).stderr
    (run / "run_identity.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    zl.run("summary", str(run), "--format", "json", check_rc=0)
    assert "nests deeper than 128 levels" in zl.run("receipt", str(run), check_rc=2).stderr


def test_store_that_is_not_a_file_and_escaped_missing_paths(zl, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for db in ("/dev/zero", str(fifo), str(tmp_path)):
        proc = raw(zl, "summary", "--db", db)
        assert proc.returncode == 2 and f"the results store {db} is not a regular file" in proc.stderr
    proc = zl.run("summary", str(tmp_path / "\x1b[31mX"), check_rc=2)
    assert "\x1b" not in proc.stderr and "\\x1b[31mX does not exist" in proc.stderr


def test_unreadable_files_and_folders_are_named(zl):
    folder = nobody_folder()
    try:
        run = write_run(Path(folder) / "run")
        zl.run("receipt", str(run), check_rc=0)
        (run / "run.log").chmod(0o600)
        proc = raw(zl, "summary", str(run), user=NOBODY, cwd="/")
        assert proc.returncode == 2 and f"cannot read {run}/run.log: Permission denied" in proc.stderr
        proc = raw(zl, "receipt", "--verify", str(run), user=NOBODY, cwd="/")
        assert proc.returncode == 1
        assert f"unreadable result run.log (receipt " in proc.stdout and "Permission denied" in proc.stdout
        run.chmod(0o700)
        for args in (["summary", str(run)], ["receipt", str(run)]):
            proc = raw(zl, *args, user=NOBODY, cwd="/")
            assert proc.returncode == 2 and f"cannot read the folder {run}: Permission denied" in proc.stderr
        proc = raw(zl, "receipt", "--verify", str(run), user=NOBODY, cwd="/")
        assert proc.returncode == 2 and f"cannot read {run}/receipt.json: Permission denied" in proc.stderr
    finally:
        shutil.rmtree(folder)


def test_receipt_does_not_follow_a_link_out_of_the_folder(zl, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("password\n")
    run = write_run(tmp_path / "campaign" / "run")
    (run / "extra.log").symlink_to(secret)
    proc = zl.run("receipt", str(run), check_rc=2)
    assert f"the result file extra.log leads to {secret}, outside {run}" in proc.stderr
    assert not (run / "receipt.json").exists()


def test_a_reader_that_leaves_early_is_not_an_error(zl, tmp_path):
    # With SIGPIPE ignored (as some parents leave it), the write fails with EPIPE: zl stays quiet.
    run = tmp_path / "run"
    run.mkdir()
    log = "ZL_RUN zl_version=0.1.0 backend=cpu timer=direct level=core\n"
    log += "".join(TABLE.replace("abs", f"op{i}") for i in range(3000))
    (run / "run.log").write_text(log)
    proc = subprocess.Popen([ZL_BIN, "summary", str(run)], env=zl.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
    proc.stdout.read(100)
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err == b""
