"""Launch arguments checked without a GPU (Function.check): host NumPy arrays stand in for
GPU tensors; each mismatch names the argument, as the C API reports it."""

from __future__ import annotations

import pytest

import tirx
from common import AXPB, VECTOR_ADD, aligned, gpu_arch, have_nvrtc

np = pytest.importorskip("numpy")


def _axpb() -> tirx.Function:
    return tirx.compile(AXPB, target="sm_90a", no_binary=True)["axpb"]


def test_matching_arguments() -> None:
    f = _axpb()
    x, y = aligned(np, 1000), aligned(np, 1000)
    f.check(x, y, 2.0, 1)
    f.check(x, y, np.float32(2.0), np.int64(1))


@pytest.mark.parametrize("args, message", [
    ((1000,), "expected 4 arguments, got 1"),
    (("x", "y", 1.0, 2.0), "argument 1: expected a tensor"),
])
def test_count_and_kind(args: tuple, message: str) -> None:
    with pytest.raises((tirx.LaunchError, TypeError), match=message):
        _axpb().check(*args)


def test_each_mismatch_names_the_argument() -> None:
    f = _axpb()
    x, y = aligned(np, 1000), aligned(np, 1000)
    with pytest.raises(tirx.LaunchError, match="argument Y: expected dtype float32, got float64"):
        f.check(x, aligned(np, 1000, "float64"), 1.0, 0.0)
    with pytest.raises(tirx.LaunchError, match="argument Y: expected shape.0. == n, got 999"):
        f.check(x, aligned(np, 999), 1.0, 0.0)
    with pytest.raises(tirx.LaunchError, match="argument X: expected ndim 1, got 2"):
        f.check(x.reshape(10, 100), y, 1.0, 0.0)
    with pytest.raises(tirx.LaunchError, match="argument X: expected data aligned"):
        f.check(aligned(np, 1001)[1:], y, 1.0, 0.0)
    with pytest.raises(tirx.LaunchError, match="alpha"):
        f.check(x, y, x, 0.0)


def test_integers_and_extents_out_of_range() -> None:
    f = _axpb()
    x, y = aligned(np, 1000), aligned(np, 1000)
    with pytest.raises(OverflowError, match="argument 4: 18446744073709551616 does not fit int64"):
        f.check(x, y, 1.0, 2**64)
    with pytest.raises(tirx.LaunchError, match="blockIdx.x = 0, outside 1..2147483647"):
        f.check(aligned(np, 1)[:0], aligned(np, 1)[:0], 1.0, 0.0)


def test_unknown_function() -> None:
    m = tirx.compile(VECTOR_ADD, target="sm_90a", no_binary=True)
    with pytest.raises(KeyError, match="has vector_add"):
        m["vector_ad"]


def test_launch_without_binary() -> None:
    f = _axpb()
    x = aligned(np, 8)
    with pytest.raises(tirx.LaunchError, match="argument Y"):
        f(x, aligned(np, 8, "int32"), 1.0, 0.0)
    with pytest.raises(tirx.LaunchError, match="without a binary"):
        f(x, aligned(np, 8), 1.0, 0.0)


@pytest.mark.skipif(gpu_arch() is not None or not have_nvrtc(), reason="a GPU, or no NVRTC")
def test_launch_without_gpu() -> None:
    f = tirx.compile(AXPB, target="sm_90a")["axpb"]
    x = aligned(np, 8)
    with pytest.raises(tirx.LaunchError, match="argument Y"):
        f(x, aligned(np, 8, "int32"), 1.0, 0.0)
    with pytest.raises(tirx.CudaUnavailable):
        f(x, aligned(np, 8), 1.0, 0.0)


class _Unexportable:
    """A tensor whose producer refuses to export it (as torch does for one needing grad)."""

    def __dlpack__(self, stream=None):  # noqa: ANN001, ANN204
        raise RuntimeError("Can't export tensors that require gradient")


def test_argument_conversion_errors_name_the_argument() -> None:
    f = _axpb()
    y = aligned(np, 1000)
    with pytest.raises(TypeError, match="axpb: argument 1: cannot pass it through DLPack: "
                                        "Can't export"):
        f.check(_Unexportable(), y, 1.0, 0.0)
    with pytest.raises(TypeError, match="argument 3: a tensor map is 128 bytes, got 64"):
        f.check(aligned(np, 1000), y, bytes(64), 0.0)


def test_stream_handles() -> None:
    from tirx._args import stream_handle

    class Stream:
        __cuda_stream__ = (0, 1234)  # the attribute form, not only the method

    assert stream_handle(7) == 7 and stream_handle(Stream()) == 1234
    with pytest.raises(TypeError, match="stream: expected a CUDA stream, got a bool"):
        stream_handle(True)
    with pytest.raises(ValueError, match="stream: -1 is not a CUstream handle"):
        stream_handle(-1)


def test_torch_subclass_orders_with_torch_stream() -> None:
    import sys
    import types

    from tirx._args import current_stream

    fake = types.ModuleType("torch")

    class Tensor:
        is_cuda = True
        device = 0

    fake.Tensor = Tensor  # type: ignore[attr-defined]
    fake.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        current_stream=lambda device: types.SimpleNamespace(cuda_stream=99))

    class UserTensor(Tensor):  # a subclass defined outside torch's modules
        pass

    saved = sys.modules.get("torch")
    sys.modules["torch"] = fake
    try:
        assert current_stream([1, UserTensor()]) == 99
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved
