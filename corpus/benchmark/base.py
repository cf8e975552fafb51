"""Benchmark classes of the sample corpus, shaped like FlagGems' benchmark/base.py.

Benchmark → GenericBenchmark, UnaryReductionBenchmark, UnaryPointwiseBenchmark,
BinaryPointwiseBenchmark, BlasBenchmark. Shapes are looked up as FlagGems does: the op name
as a key of the shapes file first, then the class names of the benchmark's MRO; at
--level comprehensive each class adds its set_more_shapes(). In kernel mode every call is
timed by this module's `do_bench` (looked up at call time, so a harness can wrap it).
"""
import time
from dataclasses import asdict

import pytest
import yaml

from . import conftest, consts
from .conftest import emit_record_logger, update_result
from .host_ops import Tensor, generate_tensor_input
from .timing import do_bench

device = "cpu"
vendor_name = "cpu"


def get_iter_count(fn):
    """Warm-up and repetition counts for operator/wrapper mode, from 5 probe calls."""
    start = time.perf_counter()
    for _ in range(5):
        fn()
    latency = max((time.perf_counter() - start) / 5 * 1000, 1e-6)
    config = conftest.Config
    return max(1, int(config.warm_up / latency)), max(1, int(config.repetition / latency))


def unary_input_fn(shape, cur_dtype, device):
    yield (generate_tensor_input(shape, cur_dtype, device),)


def binary_input_fn(shape, cur_dtype, device):
    yield (generate_tensor_input(shape, cur_dtype, device),
           generate_tensor_input(shape, cur_dtype, device))


class Benchmark:
    device = device
    DEFAULT_METRICS = consts.DEFAULT_METRICS
    DEFAULT_DTYPES = consts.FLOAT_DTYPES
    DEFAULT_SHAPES = consts.DEFAULT_SHAPES
    DEFAULT_SHAPE_DESC = "M, N"
    DEFAULT_SHAPE_FILES = "core_shapes.yaml"

    def __init__(self, op_name, torch_op, dtypes=None, is_backward=False, is_inplace=False,
                 **kwargs):
        self.op_name = op_name
        if is_backward and "_backward" not in self.op_name:
            self.op_name += "_backward"
        self.torch_op = torch_op
        self.gems_op = kwargs.get("gems_op")
        self.is_backward = is_backward
        self.is_inplace = is_inplace
        self.dtypes = dtypes if dtypes is not None else self.DEFAULT_DTYPES
        self.metrics = list(self.DEFAULT_METRICS)
        self.shapes = self.DEFAULT_SHAPES
        self.shape_desc = self.DEFAULT_SHAPE_DESC
        self.to_bench_dtypes = self.dtypes
        self.to_bench_metrics = self.metrics
        for key, value in kwargs.items():
            if hasattr(self, key):
                setattr(self, key, value)

    def set_gems(self, gems_op):
        self.gems_op = gems_op

    def set_dtypes(self, user_desired_dtypes):
        if user_desired_dtypes:
            names = {d.name for d in self.dtypes}
            invalid = [d for d in user_desired_dtypes if d.name not in names]
            if invalid:
                raise ValueError(f"Given dtype(s) '{', '.join(str(d) for d in invalid)}' "
                                 f"can't be supported by this op '{self.op_name}'")
        self.to_bench_dtypes = user_desired_dtypes or self.dtypes

    def set_metrics(self, user_desired_metrics):
        self.to_bench_metrics = list(user_desired_metrics or self.metrics)
        if conftest.Config.bench_level == consts.BenchLevel.COMPREHENSIVE:
            for metric in self.set_more_metrics():
                if metric not in self.to_bench_metrics:
                    self.to_bench_metrics.append(metric)

    def set_more_metrics(self):
        return []

    def set_shapes(self, shape_file_path=None):
        """Op name first, then the first class of the MRO that the file names."""
        try:
            with open(shape_file_path, encoding="utf-8") as f:
                table = yaml.safe_load(f) or {}
        except FileNotFoundError:
            raise FileNotFoundError(f"Shape file '{shape_file_path}' does not exist.") from None
        except yaml.YAMLError as e:
            raise ValueError(f"Shape file '{shape_file_path}' is not a valid YAML file. "
                             f"Error: {e}") from e
        keys = [self.op_name] + [cls.__name__ for cls in type(self).__mro__]
        entry = next((table[key] for key in keys if key in table), None)
        if entry is None:
            self.shapes = self.DEFAULT_SHAPES
        else:
            self.shapes = entry.get("shapes", self.DEFAULT_SHAPES)
            self.shape_desc = entry.get("shape_desc", self.DEFAULT_SHAPE_DESC)
        self.shapes = [tuple(shape) for shape in self.shapes]
        if conftest.Config.bench_level == consts.BenchLevel.COMPREHENSIVE:
            more = self.set_more_shapes()
            if more:
                self.shapes = list(dict.fromkeys(self.shapes + [tuple(s) for s in more]))

    def set_more_shapes(self):
        return []

    def record_shapes(self, *args, **kwargs):
        def parse(item):
            if isinstance(item, Tensor):
                return item.size()
            if isinstance(item, (int, float, str, consts.DType)):
                return item
            if isinstance(item, (list, tuple)):
                return [parse(sub) for sub in item]
            if isinstance(item, dict):
                return {key: parse(value) for key, value in item.items()}
            return None

        parsed_args = [parse(arg) for arg in args]
        parsed_kwargs = {key: parse(value) for key, value in kwargs.items()}
        if parsed_args and parsed_kwargs:
            return parsed_args, parsed_kwargs
        return parsed_args if parsed_args else parsed_kwargs

    def unpack_to_args_kwargs(self, input_tuple):
        args, kwargs = [], {}
        for item in input_tuple:
            if isinstance(item, dict):
                kwargs.update(item)
            else:
                args.append(item)
        return args, kwargs

    def init_user_config(self):
        config = conftest.Config
        self.mode = config.mode
        self.set_dtypes(config.user_desired_dtypes)
        self.set_metrics(config.user_desired_metrics)
        self.set_shapes(config.shape_file)

    def get_latency(self, op, *args, **kwargs):
        fn = lambda: op(*args, **kwargs)  # noqa: E731
        config = conftest.Config
        if config.mode == consts.BenchMode.KERNEL:
            return do_bench(fn, warmup=config.warm_up, rep=config.repetition,
                            return_mode="median")
        if config.mode == consts.BenchMode.CUDAGRAPH:
            pytest.skip("--mode cudagraph needs a device with CUDA graphs; the sample corpus "
                        "runs on the host")
        n_warm, n_rep = get_iter_count(fn)
        for _ in range(n_warm):
            fn()
        start = time.perf_counter()
        for _ in range(n_rep):
            fn()
        return (time.perf_counter() - start) / n_rep * 1000

    def get_gbps(self, args, latency=None):
        raise NotImplementedError("Each Benchmark must implement its own get_gbps.")

    def get_tflops(self, op, *args, **kwargs):
        return 0

    def get_input_iter(self, cur_dtype):
        raise NotImplementedError("Each Benchmark must implement its own input iterator.")

    def _measure(self, inputs):
        metric = consts.BenchmarkMetrics()
        try:
            args, kwargs = self.unpack_to_args_kwargs(inputs)
            metric.shape_detail = self.record_shapes(*args, **kwargs)
            wanted = self.to_bench_metrics
            if "latency_base" in wanted:
                metric.latency_base = self.get_latency(self.torch_op, *args, **kwargs)
            if "latency" in wanted:
                metric.latency = self.get_latency(self.gems_op or self.torch_op, *args,
                                                  **kwargs)
            if "speedup" in wanted:
                metric.speedup = metric.latency_base / metric.latency
            if "gbps" in wanted:
                metric.gbps_base = self.get_gbps(args, latency=metric.latency_base)
                metric.gbps = self.get_gbps(args, latency=metric.latency)
            if "tflops" in wanted:
                flops = self.get_tflops(self.torch_op, *args, **kwargs)
                metric.tflops = flops / metric.latency / 1e12 * 1e3
        except Exception as e:
            metric.error_msg = str(e)
            pytest.fail(str(e))
        return metric

    def run(self):
        self.init_user_config()
        config = conftest.Config
        for dtype in self.to_bench_dtypes:
            metrics = []
            inputs = self.get_input_iter(dtype)
            while True:
                try:
                    item = next(inputs)
                except StopIteration:
                    break
                except Exception as e:
                    print(f"\033[31mFAILED\033[0m: Operator={self.op_name} dtype={dtype} "
                          f"err=<<<{e}>>>")
                    pytest.fail(str(e))
                metrics.append(self._measure(item))
            result = consts.BenchmarkResult(op_name=self.op_name, dtype=str(dtype),
                                            mode=config.mode.value,
                                            level=config.bench_level.value, result=metrics)
            print(result)
            update_result(self.op_name, asdict(result))
            emit_record_logger(result.to_json())


class GenericBenchmark(Benchmark):
    """Any op: `input_fn(shape, dtype, device)` yields the input tuples of one shape."""

    def __init__(self, *args, input_fn, **kwargs):
        super().__init__(*args, **kwargs)
        self.input_fn = input_fn

    def set_more_shapes(self):
        return [(4096,), (16, 256), (8, 16, 8)]

    def get_input_iter(self, cur_dtype):
        for shape in self.shapes:
            yield from self.input_fn(shape, cur_dtype, self.device)


class UnaryReductionBenchmark(Benchmark):
    def set_more_metrics(self):
        return ["gbps"]

    def set_more_shapes(self):
        return [(8192,), (32, 256)]

    def get_input_iter(self, cur_dtype):
        for shape in self.shapes:
            yield from unary_input_fn(shape, cur_dtype, self.device)

    def get_gbps(self, args, latency=None):
        io_bytes = 2 * sum(a.numel() * a.element_size() for a in args if isinstance(a, Tensor))
        return io_bytes / (latency * 1e-3) / 1e9


class UnaryPointwiseBenchmark(Benchmark):
    DEFAULT_METRICS = consts.DEFAULT_METRICS + ["tflops"]

    def set_more_shapes(self):
        return [(1024, 2 ** i) for i in (0, 4)] + [(8, 8, 2 ** i) for i in (0, 4)]

    def get_input_iter(self, cur_dtype):
        for shape in self.shapes:
            yield from unary_input_fn(shape, cur_dtype, self.device)

    def get_tflops(self, op, *args, **kwargs):
        return args[0].numel()


class BinaryPointwiseBenchmark(Benchmark):
    DEFAULT_METRICS = consts.DEFAULT_METRICS + ["tflops"]

    def set_more_shapes(self):
        return [(1024, 2 ** i) for i in (0, 4)] + [(8, 8, 2 ** i) for i in (0, 4)]

    def get_input_iter(self, cur_dtype):
        for shape in self.shapes:
            yield from binary_input_fn(shape, cur_dtype, self.device)

    def get_tflops(self, op, *args, **kwargs):
        return sum(a.numel() for a in args if isinstance(a, Tensor))


class BlasBenchmark(Benchmark):
    """`input_fn(b, m, n, k, dtype, device, b_column_major)`; shapes are (B, M, N, K).

    At --level comprehensive every shape runs twice, the second time with B column-major.
    """

    DEFAULT_METRICS = consts.DEFAULT_METRICS + ["tflops"]
    DEFAULT_SHAPE_DESC = "B, M, N, K"

    def __init__(self, *args, input_fn, **kwargs):
        super().__init__(*args, **kwargs)
        self.input_fn = input_fn

    def set_more_shapes(self):
        return [(1, 16, 16, 128), (1, 8, 64, 64)]

    def get_input_iter(self, cur_dtype):
        layouts = [False]
        if conftest.Config.bench_level == consts.BenchLevel.COMPREHENSIVE:
            layouts.append(True)
        for b_column_major in layouts:
            for b, m, n, k in self.shapes:
                yield from self.input_fn(b, m, n, k, cur_dtype, self.device, b_column_major)

    def get_tflops(self, op, *args, **kwargs):
        if self.op_name != "mm":
            return 0
        (m, k), n = args[0].shape, args[1].shape[1]
        return 2 * m * n * k
