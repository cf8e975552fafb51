"""Pure-Python stand-ins for tensors and operators (no torch, no numpy).

Each operator comes twice: `ref_<op>` plays the torch op (plain loops) and `gems_<op>` the
FlagGems kernel (the same result through comprehensions and builtins, a little faster), so the
tables show a real speedup column.
"""
import cmath
import operator
import random

from .consts import Size


class Tensor:
    """A flat list of values with a shape and a dtype, row-major."""

    def __init__(self, data, shape, dtype):
        self.data = data
        self.shape = Size(shape)
        self.dtype = dtype

    def size(self):
        return self.shape

    def numel(self):
        return len(self.data)

    def element_size(self):
        return self.dtype.itemsize

    def t(self):
        rows, cols = self.shape
        data = [self.data[r * cols + c] for c in range(cols) for r in range(rows)]
        return Tensor(data, (cols, rows), self.dtype)


def generate_tensor_input(shape, dtype, device="cpu"):
    """Deterministic values for a shape: the same inputs in every run."""
    rng = random.Random(hash(tuple(shape)) ^ len(str(dtype)))
    n = Size(shape).numel()
    if dtype.is_complex:
        data = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(n)]
    elif dtype.name.startswith("int") or dtype.name == "bool":
        data = [rng.randrange(-64, 64) for _ in range(n)]
    else:
        data = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    return Tensor(data, shape, dtype)


def empty(shape, dtype):
    return Tensor([0] * Size(shape).numel(), shape, dtype)


def ref_abs(x):
    out = []
    for v in x.data:
        out.append(v if v >= 0 else -v)
    return Tensor(out, x.shape, x.dtype)


def gems_abs(x):
    return Tensor(list(map(abs, x.data)), x.shape, x.dtype)


def ref_abs_(x):
    for i in range(len(x.data)):
        if x.data[i] < 0:
            x.data[i] = -x.data[i]
    return x


def gems_abs_(x):
    x.data[:] = map(abs, x.data)
    return x


def ref_add(a, b, alpha=1):
    out = []
    for i in range(len(a.data)):
        out.append(a.data[i] + alpha * b.data[i])
    return Tensor(out, a.shape, a.dtype)


def gems_add(a, b, alpha=1):
    if alpha == 1:
        return Tensor(list(map(operator.add, a.data, b.data)), a.shape, a.dtype)
    return Tensor([p + alpha * q for p, q in zip(a.data, b.data)], a.shape, a.dtype)


def ref_mm(a, b):
    m, k = a.shape
    n = b.shape[1]
    out = [0.0] * (m * n)
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for p in range(k):
                acc += a.data[i * k + p] * b.data[p * n + j]
            out[i * n + j] = acc
    return Tensor(out, (m, n), a.dtype)


def gems_mm(a, b):
    m, k = a.shape
    n = b.shape[1]
    cols = [b.data[j::n] for j in range(n)]
    rows = [a.data[i * k:(i + 1) * k] for i in range(m)]
    out = [sum(map(operator.mul, row, col)) for row in rows for col in cols]
    return Tensor(out, (m, n), a.dtype)


def ref_sum(x):
    acc = 0.0
    for v in x.data:
        acc += v
    return Tensor([acc], (), x.dtype)


def gems_sum(x):
    return Tensor([sum(x.data)], (), x.dtype)


def _split(shape, dim):
    outer = Size(shape[:dim]).numel()
    inner = Size(shape[dim + 1:]).numel()
    return outer, shape[dim], inner


def ref_sum_dim(x, dim, out=None):
    outer, size, inner = _split(x.shape, dim)
    result = []
    for o in range(outer):
        for i in range(inner):
            acc = 0.0
            for s in range(size):
                acc += x.data[(o * size + s) * inner + i]
            result.append(acc)
    return _store(result, x.shape[:dim] + x.shape[dim + 1:], x.dtype, out)


def gems_sum_dim(x, dim, out=None):
    outer, size, inner = _split(x.shape, dim)
    step = size * inner
    result = [sum(x.data[o * step + i:(o + 1) * step:inner])
              for o in range(outer) for i in range(inner)]
    return _store(result, x.shape[:dim] + x.shape[dim + 1:], x.dtype, out)


def _store(values, shape, dtype, out):
    if out is None:
        return Tensor(values, shape, dtype)
    out.data[:] = values
    return out


def _fft_recursive(values):
    n = len(values)
    if n == 1:
        return list(values)
    even = _fft_recursive(values[0::2])
    odd = _fft_recursive(values[1::2])
    out = [0j] * n
    for k in range(n // 2):
        t = cmath.exp(-2j * cmath.pi * k / n) * odd[k]
        out[k] = even[k] + t
        out[k + n // 2] = even[k] - t
    return out


def _fft_iterative(values):
    n = len(values)
    a = list(values)
    j = 0
    for i in range(1, n):  # bit-reversal permutation
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    length = 2
    while length <= n:
        roots = [cmath.exp(-2j * cmath.pi * k / length) for k in range(length // 2)]
        for start in range(0, n, length):
            half = start + length // 2
            for k, w in enumerate(roots):
                t = w * a[half + k]
                a[half + k] = a[start + k] - t
                a[start + k] += t
        length <<= 1
    return a


def _fft_rows(x, transform):
    m, n = x.shape
    out = []
    for r in range(m):
        out.extend(transform(x.data[r * n:(r + 1) * n]))
    return Tensor(out, x.shape, x.dtype)


def ref_fft(x):
    return _fft_rows(x, _fft_recursive)


def gems_fft(x):
    return _fft_rows(x, _fft_iterative)
