import math

import pytest

from . import base, consts, host_ops


class FFTBenchmark(base.Benchmark):
    """Row-wise FFT of an (M, N) complex input; N is a power of two."""

    DEFAULT_METRICS = consts.DEFAULT_METRICS + ["tflops"]

    def set_shapes(self, shape_file_path=None):
        self.shapes = [(m, n) for m in (2, 8) for n in (16, 64)]

    def set_more_shapes(self):
        return None

    def get_input_iter(self, cur_dtype):
        for shape in self.shapes:
            yield (host_ops.generate_tensor_input(shape, cur_dtype, self.device),)

    def get_tflops(self, op, *args, **kwargs):
        m, n = args[0].shape
        return m * 5 * n * math.log2(n)


# Like FlagGems' own guard: keyed on CUDA although the op dispatches through the library's
# device. zl's compat rules (plan key compat_rules) exist to drop guards of this kind.
@pytest.mark.skipif(not consts.cuda_is_available(), reason="CUDA is not available")
@pytest.mark.fft
def test_perf_fft():
    bench = FFTBenchmark(op_name="fft", torch_op=host_ops.ref_fft, dtypes=[consts.complex64])
    bench.set_gems(host_ops.gems_fft)
    bench.run()
