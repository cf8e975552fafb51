"""zl plugin: device setup (`-p zl_device_setup`).

- Sets FLAGGEMS_PERF_CURRENT_OP for every test before its setup runs: the test function's
  name minus a leading `test_` (the original name for parametrized tests). The backend's
  capture-deny list and the capture markers are keyed by it.
- Replaces FlagGems' NVIDIA-only vendor guard: when the plan's backend has a torch module,
  checks that flag_gems dispatched to the backend's vendor and stops the run with a clear
  message when it did not. On the cpu backend (torch_module "") it imports nothing.
"""
import os

import pytest

import zl_plan


def pytest_configure(config):
    plan = zl_plan.plan_for(config)
    if plan is None or not plan.backend.torch_module:
        return
    check_vendor(plan)


def pytest_unconfigure(config):
    zl_plan.release(config)


def check_vendor(plan):
    """Compares flag_gems.vendor_name with the backend's vendor; UsageError on a mismatch."""
    expected = plan.backend.flaggems_vendor
    found, problem = zl_plan.flag_gems_vendor()
    if found is None:
        if problem is None:
            return  # flag_gems is not installed: FlagGems' own conftest says so
        zl_plan.marker("ZL_DEVICE_MISMATCH", expected=expected, found="")
        raise pytest.UsageError(
            f"zl: backend '{plan.backend.name}' expects flag_gems to dispatch to vendor "
            f"'{expected}' (plan {plan.path}, key backend.flaggems_vendor), but {problem}. "
            f"Set GEMS_VENDOR={expected} so that flag_gems picks that vendor, or check the "
            f"device stack.")
    if found != expected:
        zl_plan.marker("ZL_DEVICE_MISMATCH", expected=expected, found=found)
        raise pytest.UsageError(
            f"zl: backend '{plan.backend.name}' expects flag_gems to dispatch to vendor "
            f"'{expected}' (plan {plan.path}, key backend.flaggems_vendor), but "
            f"flag_gems.vendor_name is '{found}': its numbers would be another vendor's. "
            f"Set GEMS_VENDOR={expected} so that flag_gems picks the backend's vendor, or run "
            f"zl with --backend set to the backend of vendor '{found}'.")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item):
    op = zl_plan.op_key(item)
    if op:
        os.environ[zl_plan.OP_ENV] = op
    yield
