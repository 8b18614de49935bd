"""Shared by the tests: the repository's files, kernels written for the tests, aligned host
arrays (tirx checks a tensor's alignment), and whether a GPU and NVRTC are here."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional

import tirx

REPO = Path(__file__).resolve().parents[2]
VECTOR_ADD = REPO / "examples" / "vector_add.tirx"

# Y[i] = X[i] * alpha + beta for i < n: a float and an int scalar beside two tensors.
AXPB = '''
BLOCK = 128


@T.prim_func
def axpb(X: T.Buffer(("n",), "float32"), Y: T.Buffer((n,), "float32"), alpha: T.float32,
         beta: T.float32):
    T.device_entry()
    bx = T.cta_id([T.ceildiv(n, BLOCK)])
    tx = T.thread_id([BLOCK])
    i: T.let = bx * BLOCK + tx
    if i < n:
        Y[i] = X[i] * alpha + beta
'''


@functools.lru_cache(maxsize=None)
def gpu_arch() -> Optional[str]:
    """The GPU's architecture, or None without a GPU."""
    try:
        return tirx.device_arch()
    except tirx.CudaUnavailable:
        return None


@functools.lru_cache(maxsize=None)
def have_nvrtc() -> bool:
    try:
        tirx.compile(VECTOR_ADD, target="sm_90a", no_cache=True)
        return True
    except tirx.CudaUnavailable:
        return False


def only_kernel(module: tirx.Module, name: str) -> tirx.KernelStats:
    """The module's one kernel, checked: registers always (from ptxas's report in the log, else
    from the cubin); no spills when the log reports the kernel, unknown (None) when it does
    not and the figures came from the cubin."""
    assert [k.name for k in module.kernels] == [name], \
        f"kernels {module.kernels} ({module.target}): {module.log!r}"
    (k,) = module.kernels
    assert k.registers > 0
    if f"Compiling entry function '{name}'" in module.log:
        assert k.spill_store_bytes == 0 and k.spill_load_bytes == 0
    else:
        assert k.spill_store_bytes is None and k.spill_load_bytes is None
    return k


def aligned(np: Any, n: int, dtype: str = "float32", align: int = 256) -> Any:
    """A 1-d NumPy array of n elements whose data is aligned to `align` bytes."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + align, np.uint8)
    start = -raw.ctypes.data % align
    return raw[start:start + n * itemsize].view(dtype)
