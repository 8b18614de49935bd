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
