"""zl_state's settings: an Item reads and sets one piece of interpreter state; take() reads a
list of them once (what cannot be read is not watched), check() puts back what changed and
reports it, in words, as restored, or as unrestorable where setting it back did not take."""
import contextlib
import types
from collections import namedtuple

KINDS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)

# A setting: get() reads it, put(value) sets it; same(a, b) compares (default: same); show
# names a value, or an element of a list, for the report (False: the label alone).
Item = namedtuple("Item", "label get put same show", defaults=(None, None))


class Report:
    def __init__(self):
        self.restored, self.unrestorable = [], []

    def failed(self, what, e):
        self.unrestorable.append("{}: check failed ({}: {})".format(what, type(e).__name__,
                                                                    e)[:200])


def same(a, b):
    try:
        return a is b or bool(a == b)
    except Exception:  # an == that cannot answer (a tensor's): a change
        return False


def short(x):
    if isinstance(x, KINDS):
        return "{}.{}".format(getattr(x, "__module__", None) or "?", getattr(x, "__qualname__", x))
    text = repr(x)
    return text if len(text) <= 60 else type(x).__name__


def diff(now, base, name=short):
    parts = []
    for word, items in (("added", [x for x in now if x not in base]),
                        ("removed", [x for x in base if x not in now])):
        if items:
            parts.append("{} {}: {}".format(len(items), word, ", ".join(name(x) for x in items)))
    return "; ".join(parts) or "reordered"


def describe(item, now, then):
    show = short if item.show is None else item.show
    if show is False:
        return item.label
    if isinstance(now, list) and isinstance(then, list):
        return "{} ({})".format(item.label, diff(now, then, show))
    return "{} ({}, baseline {})".format(item.label, show(now), show(then))


def take(items):
    taken = []
    for item in filter(None, items):
        with contextlib.suppress(Exception):  # a setting this version cannot read: unwatched
            taken.append((item, item.get()))
    return taken


def check(taken, report):
    for item, then in taken:
        equal = item.same or same
        try:
            now = item.get()
            if not equal(now, then):
                item.put(then)
                took = equal(item.get(), then)
                (report.restored if took else report.unrestorable).append(
                    describe(item, now, then) + ("" if took else ": setting it back did not take"))
        except Exception as e:
            report.failed(item.label, e)


def attr(obj, name, label):
    return Item(label, lambda: getattr(obj, name), lambda v: setattr(obj, name, v))


def call(obj, label, get, put, **kw):
    get, put = getattr(obj, get, None), getattr(obj, put, None)
    return Item(label, get, put, **kw) if get is not None and put is not None else None
