import functools

import pytest

from . import base, consts, host_ops


@pytest.mark.add
def test_add():
    bench = base.BinaryPointwiseBenchmark(op_name="add", torch_op=host_ops.ref_add,
                                          gems_op=host_ops.gems_add,
                                          dtypes=consts.FLOAT_DTYPES)
    bench.run()


@pytest.mark.add
@pytest.mark.parametrize("alpha", [2, 0.5])
def test_add_alpha(alpha):
    bench = base.BinaryPointwiseBenchmark(
        op_name="add_alpha", torch_op=functools.partial(host_ops.ref_add, alpha=alpha),
        gems_op=functools.partial(host_ops.gems_add, alpha=alpha), dtypes=[consts.float32])
    bench.run()
