"""The autotune records format (docs/plan-file.md, "Autotune records"): not a plugin.

A records folder holds one JSON file per autotuned kernel and a manifest.json. Each kernel file
names the key fields (the tuner's `keys`, then `dtype_<i>` for the tensor dtypes that Triton's
Autotuner and FlagGems' LibTuner append to a key) and, per key, the config that won: its
kwargs and launch options. Keys are matched by their exact JSON form, so 1 and 1.0 and "1" stay
three different keys, as they are to the tuner.

Standard library only: zl's sweep merges these files in C++ and the tests read them without
triton.
"""
import json
import numbers
import os
import re
import tempfile
from pathlib import Path

SCHEMA = 1
MANIFEST = "manifest.json"
RECORDS_DIR = "autotune_records"
# Launch options of triton.Config besides kwargs, across Triton versions (feature-detected).
CONFIG_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "num_buffers_warp_spec",
                  "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer", "ir_override")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_NAME = 120


class RecordsError(Exception):
    """A records folder or file that cannot be used; the message names the file."""


def jsonable(value):
    """The JSON form of a key value or config value: tuples become lists; anything that is not
    a number, string, bool or None becomes {"repr": repr(value)} (matched by its repr)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return {"repr": repr(value)}


def key_id(key):
    """The identity of a key: its compact JSON text (what a record file stores is matched
    against what the tuner computes, both through jsonable)."""
    return json.dumps(jsonable(list(key) if isinstance(key, tuple) else key),
                      separators=(",", ":"), sort_keys=True)


def key_fields(names, key):
    """The key as {name: value}: the tuner's key names, then dtype_<i> for what follows."""
    values = list(key) if isinstance(key, (list, tuple)) else [key]
    fields = {}
    for i, value in enumerate(values):
        name = names[i] if i < len(names) else f"dtype_{i - len(names)}"
        fields[name] = jsonable(value)
    return fields


def key_text(names, key):
    """A marker-friendly key: name:value pairs joined by commas (values as JSON, strings bare)."""
    parts = []
    for name, value in key_fields(names, key).items():
        parts.append(f"{name}:{value if isinstance(value, str) else json.dumps(value)}")
    return ",".join(parts).replace(" ", "")


def config_dict(config):
    """What a record stores of a triton.Config: kwargs, the launch options it has, and
    all_kwargs() when the Config offers it."""
    doc = {"kwargs": jsonable(dict(getattr(config, "kwargs", {}) or {}))}
    for name in CONFIG_OPTIONS:
        if hasattr(config, name):
            doc[name] = jsonable(getattr(config, name))
    all_kwargs = getattr(config, "all_kwargs", None)
    if callable(all_kwargs):
        try:
            doc["all_kwargs"] = jsonable(all_kwargs())
        except Exception:  # an old Config without the fields all_kwargs reads
            pass
    return doc


def same_config(config, recorded):
    """Whether a live Config is the recorded one: equal kwargs, and equal launch options where
    both sides have a value (Triton versions differ in which options exist)."""
    if jsonable(dict(getattr(config, "kwargs", {}) or {})) != recorded.get("kwargs"):
        return False
    for name in CONFIG_OPTIONS:
        mine = jsonable(getattr(config, name, None))
        theirs = recorded.get(name)
        if mine is not None and theirs is not None and mine != theirs:
            return False
    return True


def safe_file_name(kernel, taken):
    """A file name for a kernel id: unsafe characters become _, long ids are shortened with a
    hash, and a name already taken gets -2, -3, …; never manifest.json."""
    base = _UNSAFE.sub("_", kernel).strip(".") or "kernel"
    if len(base) > _MAX_NAME:
        import hashlib

        base = base[:_MAX_NAME - 13] + "-" + hashlib.sha256(kernel.encode()).hexdigest()[:12]
    name, i = base, 2
    while f"{name}.json" in taken or f"{name}.json" == MANIFEST:
        name, i = f"{base}-{i}", i + 1
    taken.add(f"{name}.json")
    return f"{name}.json"


def write_records(records_dir, kernels, manifest):
    """Writes the folder atomically: every file into a temporary folder beside it, then one
    rename, so a reader sees all of a record run or none of it.

    kernels: {kernel_id: kernel document}; manifest: the manifest document (its `kernels` key
    is filled in here)."""
    target = Path(records_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    taken, index = set(), {}
    for kernel in sorted(kernels):
        doc = kernels[kernel]
        name = safe_file_name(kernel, taken)
        _dump(tmp / name, doc)
        index[kernel] = {"file": name, "keys": len(doc["entries"])}
    _dump(tmp / MANIFEST, dict(manifest, schema=SCHEMA, kernels=index))
    if target.exists():  # not expected in a fresh run folder: keep the old one beside it
        target.rename(target.with_name(f"{target.name}.replaced-{os.getpid()}"))
    tmp.rename(target)
    return target


def _dump(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def load_records(source):
    """Reads a records folder: {kernel_id: {key_id: entry}} and the kernel documents.

    `source` is the autotune_records folder itself or a run folder holding one. Raises
    RecordsError naming the file for anything unreadable or of another schema."""
    folder = Path(source)
    if (folder / RECORDS_DIR).is_dir():
        folder = folder / RECORDS_DIR
    if not folder.is_dir():
        raise RecordsError(f"the records folder {folder} does not exist")
    by_kernel, docs = {}, {}
    for path in sorted(folder.glob("*.json")):
        if path.name == MANIFEST:
            continue
        doc = _read(path)
        kernel = doc.get("kernel")
        entries = doc.get("entries")
        if not isinstance(kernel, str) or not isinstance(entries, list):
            raise RecordsError(f"record file {path}: needs 'kernel' (a string) and 'entries' "
                               f"(a list)")
        table = by_kernel.setdefault(kernel, {})
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or "key" not in entry or \
                    not isinstance(entry.get("config"), dict):
                raise RecordsError(f"record file {path}: entries[{i}] needs 'key' and 'config'")
            table[key_id(entry["key"])] = entry
        docs[kernel] = doc
    return folder, by_kernel, docs


def _read(path):
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RecordsError(f"record file {path} cannot be read: {e}") from e
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise RecordsError(f"record file {path}: schema must be {SCHEMA} (written by another "
                           f"zl version?)")
    return doc
