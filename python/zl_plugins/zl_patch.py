"""Not a plugin: what a plugin changes in other libraries for one pytest session, and putting
it all back at pytest_unconfigure.

zl_timing and zl_autotune wrap functions and methods of Triton, FlagGems and the benchmark's
base module (and of the subclasses that appear once the benchmark has imported flag_gems),
zl_autotune swaps each tuner's cache for a proxy, and zl_compat rewrites `pytestmark` lists.
A Patcher records each (owner, name, what the owner itself held) and restores them last first,
so a second pytest session in the same process (a warm worker) finds those libraries, classes
and test modules as they were imported.

A wrapper made with `wraps` keeps its original as `_zl_original`; `wrap_own` skips a method
that already has one, so a class reached twice (through two roots, or again before each test)
is wrapped once.
"""
import functools

import zl_plan

ORIGINAL = "_zl_original"
_ABSENT = object()


def wraps(original):
    """functools.wraps(original), and the wrapper keeps `original` as its `_zl_original`."""

    def decorate(wrapper):
        wrapper = functools.wraps(original)(wrapper)
        setattr(wrapper, ORIGINAL, original)
        return wrapper

    return decorate


def is_wrapped(obj):
    return hasattr(obj, ORIGINAL)


def class_tree(root):
    """`root` and every class derived from it, directly or not, each once (depth first)."""
    seen, stack = [], [root]
    while stack:
        cls = stack.pop()
        if cls not in seen:
            seen.append(cls)
            stack.extend(cls.__subclasses__())
    return seen


def _own(owner, name):
    """What `owner` itself holds under `name` (not what a base class or type provides)."""
    own = getattr(owner, "__dict__", None)
    if own is None:  # an object with __slots__: what it has is its own
        return getattr(owner, name, _ABSENT)
    return own.get(name, _ABSENT)


class Patcher:
    """The attributes set on other libraries' objects during one session."""

    def __init__(self):
        self._saved = []  # (owner, name, what the owner itself held before, or _ABSENT)

    def patch(self, owner, name, value):
        """owner.name = value, remembered; when setattr raises, nothing is remembered."""
        before = _own(owner, name)
        setattr(owner, name, value)
        self._saved.append((owner, name, before))

    def wrap_own(self, owner, name, wrap, accept=callable):
        """Replaces the `name` that `owner` defines itself by wrap(it), when accept(it) and it
        is not a zl wrapper already; an inherited one is wrapped where it is defined."""
        own = _own(owner, name)
        if own is _ABSENT or not accept(own) or is_wrapped(own):
            return
        self.patch(owner, name, wrap(own))

    def restore(self):
        """Puts back everything patched, last first; what the owner did not hold itself is
        removed again, so an inherited attribute shows through as before."""
        while self._saved:
            owner, name, before = self._saved.pop()
            if before is not _ABSENT:
                setattr(owner, name, before)
                continue
            try:
                delattr(owner, name)
            except AttributeError:
                pass  # already gone

    @property
    def count(self):
        return len(self._saved)


def unconfigure(config, state):
    """pytest_unconfigure of a plugin whose per-session state keeps a Patcher as `patches`:
    restores it and forgets the config. Returns None, the plugin's next state."""
    if state is not None:
        state.patches.restore()
    zl_plan.release(config)
    return None
