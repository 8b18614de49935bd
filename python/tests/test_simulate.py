"""Kernels run in the CPU simulator (Module.simulate) on NumPy arrays: no GPU or CUDA toolkit.
Results against NumPy, a kernel error naming its line, a mismatched argument naming it."""

from __future__ import annotations

import pytest

import tirx
from common import AXPB, REPO, VECTOR_ADD, aligned

np = pytest.importorskip("numpy")

# S[tx + 1] past the end of S for the last thread: line 9.
OFF_BY_ONE = '''@T.prim_func
def f(X: T.Buffer((64,), "float32"), Y: T.Buffer((64,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    S = T.alloc_shared((64,), "float32")
    S[tx] = X[tx]
    T.cuda.cta_sync()
    Y[tx] = S[tx + 1]
'''


def test_vector_add() -> None:
    mod = tirx.compile(VECTOR_ADD, target="sm_90a", no_binary=True)
    rng = np.random.default_rng()
    a, b, c = aligned(np, 1000), aligned(np, 1000), aligned(np, 1000)
    a[:] = rng.standard_normal(1000)
    b[:] = rng.standard_normal(1000)
    c[:] = np.nan
    mod.simulate("vector_add", a, b, c, 1000)
    assert np.array_equal(c, a + b)


def test_scalars_and_function_form() -> None:
    x, y = aligned(np, 300), aligned(np, 300)
    x[:] = np.arange(300)
    y[:] = np.nan
    tirx.compile(AXPB, target="sm_90a", no_binary=True)["axpb"].simulate(x, y, 0.5, 2)
    assert np.array_equal(y, x * np.float32(0.5) + 2)


def test_row_softmax() -> None:
    mod = tirx.compile(REPO / "examples" / "row_softmax.tirx", target="sm_90a", no_binary=True,
                       defines={"ROWS": 4, "N": 300})
    x = aligned(np, 4 * 300).reshape(4, 300)
    x[:] = np.random.default_rng().standard_normal((4, 300))
    y = aligned(np, 4 * 300).reshape(4, 300)
    y[:] = np.nan
    mod.simulate("row_softmax", x, y)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert np.linalg.norm(y - ref) / np.linalg.norm(ref) < 1e-6


def test_kernel_error_names_the_line() -> None:
    mod = tirx.compile(OFF_BY_ONE, target="sm_90a", no_binary=True, filename="bug.tirx")
    x, y = aligned(np, 64), aligned(np, 64)
    x[:] = 1
    with pytest.raises(tirx.LaunchError, match=r"bug\.tirx:9:.*out of bounds of S.*"
                                               r"thread \(63,0,0\) of CTA \(0,0,0\)"):
        mod.simulate("f", x, y)


def test_kernel_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    spin = OFF_BY_ONE.replace("    T.cuda.cta_sync()\n    Y[tx] = S[tx + 1]\n",
                              "    while S[tx] < T.float32(2):\n        Y[tx] = Y[tx] + T.float32(1)\n")
    mod = tirx.compile(spin, target="sm_90a", no_binary=True, filename="spin.tirx")
    x, y = aligned(np, 64), aligned(np, 64)
    x[:] = 1
    y[:] = 0
    monkeypatch.setenv("TIRX_KERNEL_TIMEOUT", "0.2")
    with pytest.raises(tirx.LaunchError, match=r"spin\.tirx:9:.*did not finish within 0\.2 s"):
        mod.simulate("f", x, y)


def test_mismatched_argument() -> None:
    mod = tirx.compile(VECTOR_ADD, target="sm_90a", no_binary=True)
    a, c = aligned(np, 1000), aligned(np, 1000)
    with pytest.raises(tirx.LaunchError, match="argument B: expected dtype float32"):
        mod.simulate("vector_add", a, aligned(np, 1000, "float64"), c, 1000)
    with pytest.raises(KeyError, match="no function 'nope'"):
        mod.simulate("nope", a)


def test_simulate_trace() -> None:
    # tests/build/iket_trace.tirx: a "cta" range around each CTA's work, a "half" range per
    # half tile (two per CTA), a "done" mark; 300 elements make two CTAs of four warps
    mod = tirx.compile(REPO / "tests" / "build" / "iket_trace.tirx", target="sm_90a",
                       no_binary=True, trace=True)
    a = aligned(np, 300)
    a[:] = np.arange(300)
    trace = mod["traced_scale"].simulate_trace(a, 300, svg=True)
    assert np.array_equal(a, 2 * np.arange(300))
    assert '"traceEvents"' in trace.json and trace.svg is not None and "<svg" in trace.svg
    rows = {(s.warp, s.name): s for s in trace.summary()}
    assert {w for w, _ in rows} == {0, 1, 2, 3}
    for w in range(4):
        cta, half = rows[(w, "cta")], rows[(w, "half")]
        assert cta.kernel == "traced_scale_kernel"
        assert cta.per_cta == 1 and half.per_cta == 2
        assert 0 < half.mean_us < cta.mean_us and cta.total_us == cta.mean_us
    assert "traced_scale_kernel" in trace.summary_text()
    # without trace=True there is nothing to record
    plain = tirx.compile(REPO / "tests" / "build" / "iket_trace.tirx", target="sm_90a",
                         no_binary=True)
    with pytest.raises(tirx.LaunchError):
        plain["traced_scale"].simulate_trace(a, 300)
