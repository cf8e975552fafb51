import pytest

from . import base, consts, host_ops


@pytest.mark.abs
def test_abs():
    bench = base.UnaryPointwiseBenchmark(op_name="abs", torch_op=host_ops.ref_abs,
                                         gems_op=host_ops.gems_abs,
                                         dtypes=consts.FLOAT_DTYPES)
    bench.run()


@pytest.mark.abs_
def test_abs_inplace():
    bench = base.UnaryPointwiseBenchmark(op_name="abs_", torch_op=host_ops.ref_abs_,
                                         gems_op=host_ops.gems_abs_,
                                         dtypes=consts.FLOAT_DTYPES, is_inplace=True)
    bench.run()
