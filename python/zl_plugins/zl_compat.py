"""zl plugin: the backend's compat rules (`-p zl_compat`, always first in zl's plugin list).

Some FlagGems benchmarks guard themselves with `torch.cuda.is_available()` although the code
under test dispatches through flag_gems.device; on another vendor that turns a working
operator into "not measured". A compat rule (plan key compat_rules, from the backend) names
one file, one exact skip reason and one vendor:

- action drop: the `skipif` marks of that file whose `reason` equals the rule's exactly are
  removed, but only when flag_gems.vendor_name equals the rule's vendor. One
  `ZL_COMPAT_DROPPED` line per test it unskips.
- action keep: a guard that was probed on a device and is right. When a collected test of
  that file carries it, one `ZL_COMPAT_KEPT` line says that it stays and why.

A rule of another vendor does nothing and prints nothing. flag_gems is imported only when
the plan has at least one rule. The hook runs first (tryfirst) because it rewrites
collection-time marks that every later reader of the item list must see. The `pytestmark`
lists it rewrites are put back at unconfigure (zl_patch), for a next session in the process.
"""
import os
from pathlib import Path

import pytest

import zl_patch
import zl_plan

_PATCHES = zl_patch.Patcher()


def pytest_configure(config):
    zl_plan.plan_for(config)


def pytest_unconfigure(config):
    _PATCHES.restore()
    zl_plan.release(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    plan = zl_plan.plan_for(config)
    if plan is None or not plan.compat_rules:
        return
    vendor, problem = zl_plan.flag_gems_vendor()
    if vendor is None:
        raise pytest.UsageError(
            f"zl: plan {plan.path} has compat rules (key compat_rules), which apply only when "
            f"flag_gems.vendor_name is the rule's vendor, but "
            f"{problem or 'flag_gems is not importable (not installed, not on PYTHONPATH)'}")
    roots = _roots(config, plan)
    for rule in plan.compat_rules:
        if rule.vendor != vendor:
            continue
        guarded = [item for item in items
                   if _in_file(item, rule.file, roots) and _guards(item, rule)]
        if rule.action == "keep":
            if guarded:
                zl_plan.marker("ZL_COMPAT_KEPT", file=rule.file, reason=rule.skip_reason,
                               why=rule.why)
            continue
        for item in guarded:
            drop_skip(item, rule.skip_reason, _PATCHES)
            zl_plan.marker("ZL_COMPAT_DROPPED", file=rule.file, reason=rule.skip_reason,
                           vendor=rule.vendor, node=item.nodeid)


def _roots(config, plan):
    """Folders a rule's file is relative to: the FlagGems checkout, pytest's rootdir and the
    folder pytest started in (zl starts it in the checkout)."""
    roots = [Path(config.rootpath), Path(config.invocation_params.dir)]
    if plan.flaggems_dir:
        roots.insert(0, Path(plan.flaggems_dir))
    return _both_spellings(roots)


def _both_spellings(paths):
    """Each path as given (made absolute) and with symbolic links resolved."""
    out = []
    for path in paths:
        for spelling in (Path(os.path.abspath(path)), Path(os.path.realpath(path))):
            if spelling not in out:
                out.append(spelling)
    return out


def _in_file(item, rule_file, roots):
    wanted = Path(rule_file)
    for path in _both_spellings([item.path]):
        for root in roots:
            try:
                if path.relative_to(root) == wanted:
                    return True
            except ValueError:
                continue
    return False


def _is_target(mark, reason):
    return mark.name == "skipif" and mark.kwargs.get("reason") == reason


def _guards(item, rule):
    return any(_is_target(mark, rule.skip_reason) for mark in item.iter_markers(name="skipif"))


def drop_skip(item, reason, patches):
    """Removes the skipif marks with exactly `reason` that apply to `item`; the `pytestmark`
    lists it changes are recorded in `patches` (a zl_patch.Patcher).

    pytest evaluates skipif in pytest_runtest_setup from item.iter_markers(), which walks the
    own_markers of the item and of its parents (class, module); the same Mark objects also
    sit in the `pytestmark` lists of the function, class and module, which are read when
    nodes are created. Both places are cleaned, within the item's own file only.
    """
    for node in item.listchain():
        if getattr(node, "path", None) != item.path:
            continue  # the session, packages and folders are not this file's
        node.own_markers[:] = [m for m in node.own_markers if not _is_target(m, reason)]
        obj = getattr(node, "obj", None)
        if obj is None:
            continue
        owner = getattr(obj, "__func__", obj)
        if isinstance(owner, type) and "pytestmark" not in vars(owner):
            continue  # inherited from a base class: not this file's to change
        marks = getattr(owner, "pytestmark", None)
        if marks is None:
            continue
        if isinstance(marks, (list, tuple)):
            kept = [m for m in marks if not _is_target(getattr(m, "mark", m), reason)]
        else:
            kept = [] if _is_target(getattr(marks, "mark", marks), reason) else [marks]
        if len(kept) != (len(marks) if isinstance(marks, (list, tuple)) else 1):
            try:
                patches.patch(owner, "pytestmark", kept)
            except (AttributeError, TypeError):
                pass  # a read-only object; its node's own_markers are already clean
