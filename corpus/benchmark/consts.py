"""Constants, stand-in types and the result formats of the sample corpus.

The corpus has no torch: a DType is a name that prints as `torch.<name>`, a Size is a tuple
that prints as `torch.Size([...])`, so the tables and the record log come out byte for byte
in FlagGems' formats (zl's log parser reads both).
"""
import enum
import json
from dataclasses import asdict, dataclass, field
from typing import Any, List, Optional


class BenchMode(enum.Enum):
    KERNEL = "kernel"
    OPERATOR = "operator"
    WRAPPER = "wrapper"
    CUDAGRAPH = "cudagraph"


class BenchLevel(enum.Enum):
    COMPREHENSIVE = "comprehensive"
    CORE = "core"


class DType:
    """A dtype by name; str() is `torch.float16`, as FlagGems prints a torch.dtype."""

    _SIZES = {"float16": 2, "bfloat16": 2, "float32": 4, "int16": 2, "int32": 4, "bool": 1,
              "complex64": 8}

    def __init__(self, name):
        self.name = name
        self.itemsize = self._SIZES[name]

    def __str__(self):
        return f"torch.{self.name}"

    __repr__ = __str__

    @property
    def is_complex(self):
        return self.name.startswith("complex")


float16 = DType("float16")
float32 = DType("float32")
bfloat16 = DType("bfloat16")
int16 = DType("int16")
int32 = DType("int32")
bool_ = DType("bool")
complex64 = DType("complex64")

DTYPES_BY_NAME = {d.name: d for d in (float16, float32, bfloat16, int16, int32, bool_,
                                      complex64)}
FLOAT_DTYPES = [float16, float32, bfloat16]
INT_DTYPES = [int16, int32]


class Size(tuple):
    """A shape; repr is `torch.Size([64, 64])`, JSON is a list."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n


DEFAULT_WARMUP_TIME = 5  # ms; FlagGems uses 1000, the corpus is meant to run in seconds
DEFAULT_ITER_TIME = 20  # ms; FlagGems uses 100
DEFAULT_METRICS = ["latency_base", "latency", "speedup"]
ALL_AVAILABLE_METRICS = ["latency_base", "latency", "gbps_base", "gbps", "speedup",
                         "accuracy", "tflops", "utilization", "compared_speedup", "error_msg"]
DEFAULT_SHAPES = [(1024,), (64, 64), (16, 32, 32)]


def cuda_is_available():
    """Stands in for torch.cuda.is_available(): the corpus never has CUDA."""
    return False


@dataclass
class BenchmarkMetrics:
    legacy_shape: Optional[Any] = None
    shape_detail: Any = field(default_factory=list)
    latency_base: Optional[float] = None
    latency: Optional[float] = None
    gbps_base: Optional[float] = None
    gbps: Optional[float] = None
    speedup: Optional[float] = None
    accuracy: Optional[float] = None
    tflops: Optional[float] = None
    utilization: Optional[float] = None
    compared_speedup: Optional[float] = None
    error_msg: Optional[str] = None


def _cell(value, digits):
    return f"{'N/A':>20}" if value is None else f"{value:>20.{digits}f}"


@dataclass
class BenchmarkResult:
    op_name: str
    dtype: str
    mode: str
    level: str
    result: List[BenchmarkMetrics] = field(default_factory=list)

    def __str__(self):
        has_tflops = bool(self.result and self.result[0].tflops)
        has_gbps = bool(self.result and self.result[0].gbps is not None)
        cols = [f"{'Status':<10}", f"{'Torch Latency (ms)':>20}", f"{'Gems Latency (ms)':>20}",
                f"{'Gems Speedup':>20}"]
        if has_tflops:
            cols.append(f"{'TFLOPS':>20}")
        if has_gbps:
            cols += [f"{'Torch GBPS ':>20}", f"{'Gems GBPS ':>20}"]
        cols.append(f"{'Size Detail':>20}\n")
        header = " ".join(cols)
        out = [f"\nOperator: {self.op_name}  Performance Test "
               f"(dtype={self.dtype}, mode={self.mode},level={self.level})\n",
               header, "-" * len(header), "\n"]
        for m in self.result:
            status = "SUCCESS" if m.error_msg is None else "FAILED"
            row = f"{status:<10}" + _cell(m.latency_base, 6) + _cell(m.latency, 6)
            row += _cell(m.speedup, 3)
            if m.tflops:
                row += _cell(m.tflops, 3)
            if has_gbps and m.gbps is not None:
                row += _cell(m.gbps_base, 3) + _cell(m.gbps, 3)
            out.append(f"{row}{' ' * 10}{m.shape_detail}\n")
        return "".join(out)

    def to_json(self):
        return json.dumps(asdict(self), default=_json_default)


def _json_default(value):
    if isinstance(value, (DType, enum.Enum)):
        return str(value) if isinstance(value, DType) else value.value
    return str(value)
