import pytest

from . import base, consts, host_ops


@pytest.mark.sum
def test_sum():
    bench = base.UnaryReductionBenchmark(op_name="sum", torch_op=host_ops.ref_sum,
                                         gems_op=host_ops.gems_sum,
                                         dtypes=consts.FLOAT_DTYPES)
    bench.run()


def sum_dim_input_fn(shape, cur_dtype, device):
    yield host_ops.generate_tensor_input(shape, cur_dtype, device), len(shape) - 1


@pytest.mark.sum_dim
def test_sum_dim():
    # "sum_dim" is an op key of core_shapes.yaml: it wins over the class chain.
    bench = base.GenericBenchmark(op_name="sum_dim", input_fn=sum_dim_input_fn,
                                  torch_op=host_ops.ref_sum_dim,
                                  gems_op=host_ops.gems_sum_dim, dtypes=[consts.float32])
    bench.run()


def sum_dim_out_input_fn(shape, cur_dtype, device):
    x = host_ops.generate_tensor_input(shape, cur_dtype, device)
    dim = 0
    yield x, dim, {"out": host_ops.empty(shape[:dim] + shape[dim + 1:], cur_dtype)}


@pytest.mark.sum_dim_out
def test_sum_dim_out():
    bench = base.GenericBenchmark(op_name="sum_dim_out", input_fn=sum_dim_out_input_fn,
                                  torch_op=host_ops.ref_sum_dim,
                                  gems_op=host_ops.gems_sum_dim, dtypes=[consts.float32])
    bench.run()
