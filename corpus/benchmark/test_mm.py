import pytest

from . import base, consts, host_ops


def mm_input_fn(b, m, n, k, cur_dtype, device, b_column_major):
    a = host_ops.generate_tensor_input((m, k), cur_dtype, device)
    if b_column_major:
        yield a, host_ops.generate_tensor_input((n, k), cur_dtype, device).t()
    else:
        yield a, host_ops.generate_tensor_input((k, n), cur_dtype, device)


@pytest.mark.mm
def test_mm():
    # No "mm" key in core_shapes.yaml: the shapes come from the BlasBenchmark class key.
    bench = base.BlasBenchmark(op_name="mm", input_fn=mm_input_fn, torch_op=host_ops.ref_mm,
                               gems_op=host_ops.gems_mm, dtypes=consts.FLOAT_DTYPES)
    bench.run()
