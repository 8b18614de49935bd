"""On a GPU (skipped elsewhere): kernels run on torch tensors, on torch's current stream or
the one given, with scalars; mismatched arguments are LaunchErrors naming the argument;
compile-time constants from defines; the docs' example runs as written; a traced run."""

from __future__ import annotations

import re

import pytest

import tirx
from common import AXPB, REPO, VECTOR_ADD, gpu_arch, only_kernel

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(gpu_arch() is None or not torch.cuda.is_available(),
                                reason="no GPU")


def _inputs(n: int) -> "tuple":
    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.rand(n, device="cuda", generator=g) * 2 - 1
    b = torch.rand(n, device="cuda", generator=g) * 2 - 1
    return a, b, torch.full_like(a, float("nan"))


def test_vector_add_on_torch_tensors() -> None:
    m = tirx.compile(VECTOR_ADD)
    assert m.target == gpu_arch()
    n = 100_003
    a, b, c = _inputs(n)
    m["vector_add"](a, b, c, n)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)


def test_float_scalars() -> None:
    f = tirx.compile(AXPB)["axpb"]
    n = 5000
    x, _, y = _inputs(n)
    f(x, y, 2.5, -1.0)
    torch.cuda.synchronize()
    ref = x.double() * 2.5 - 1.0
    assert ((y.double() - ref).norm() / ref.norm()).item() < 1e-6


def test_runs_on_torch_current_stream() -> None:
    f = tirx.compile(VECTOR_ADD)["vector_add"]
    n = 1 << 20
    a, b, c = _inputs(n)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(20_000_000)
        a2 = a * 2  # written on s after the sleep: the launch must wait for it
        f(a2, b, c, n)
    s.synchronize()
    assert torch.equal(c, a * 2 + b)


def test_runs_on_the_given_stream() -> None:
    f = tirx.compile(VECTOR_ADD)["vector_add"]
    n = 1 << 20
    a, b, c = _inputs(n)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(20_000_000)
        a2 = a * 3
    f(a2, b, c, n, stream=s)
    s.synchronize()
    assert torch.equal(c, a * 3 + b)


def test_mismatched_arguments_name_the_argument() -> None:
    f = tirx.compile(VECTOR_ADD)["vector_add"]
    a, b, c = _inputs(256)
    with pytest.raises(tirx.LaunchError, match="argument B: expected dtype float32"):
        f(a, b.double(), c, 256)
    with pytest.raises(tirx.LaunchError, match="argument C: expected a CUDA device tensor"):
        f(a, b, c.cpu(), 256)
    with pytest.raises(tirx.LaunchError, match="argument A: expected shape"):
        f(a, b, c, 255)
    with pytest.raises(tirx.LaunchError, match="expected 4 arguments, got 3"):
        f(a, b, c)
    np = pytest.importorskip("numpy")
    with pytest.raises(tirx.LaunchError, match="argument A: expected a CUDA device tensor"):
        f(np.zeros(256, np.float32), b, c, 256)


def test_kernels_and_cache() -> None:
    # torch's NVRTC may leave ptxas's report out of all but the process's first compile: the
    # stats then come from the cubin (only_kernel checks both ways)
    first = tirx.compile(VECTOR_ADD, no_cache=True)
    k = only_kernel(first, "vector_add_kernel")
    tirx.compile(VECTOR_ADD)
    hit = tirx.compile(VECTOR_ADD)
    assert hit.cached
    assert only_kernel(hit, "vector_add_kernel").registers == k.registers


def test_defines_size_a_kernel() -> None:
    rows, n = 64, 1000
    f = tirx.compile(REPO / "examples" / "row_softmax.tirx", defines={"ROWS": rows, "N": n})
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(rows, n, device="cuda", generator=g)
    y = torch.full_like(x, float("nan"))
    f["row_softmax"](x, y)
    torch.cuda.synchronize()
    ref = torch.softmax(x.double(), dim=1)
    assert ((y.double() - ref).norm() / ref.norm()).item() < 1e-5


def test_cupy_arrays() -> None:
    cupy = pytest.importorskip("cupy")
    f = tirx.compile(VECTOR_ADD)["vector_add"]
    a = cupy.random.rand(1000, dtype=cupy.float32)
    b = cupy.random.rand(1000, dtype=cupy.float32)
    c = cupy.full(1000, cupy.nan, dtype=cupy.float32)
    f(a, b, c, 1000)
    cupy.cuda.get_current_stream().synchronize()
    assert bool((c == a + b).all())


def test_docs_example() -> None:
    doc = (REPO / "docs" / "python.md").read_text()
    example = re.search(r"```python\n(.*?)```", doc, re.S)
    assert example is not None
    exec(compile(example.group(1), "docs/python.md", "exec"), {"__name__": "docs_example"})


def test_trace_on_gpu() -> None:
    # tests/build/iket_trace.tirx compiled with trace=True: one traced run, its spans per warp
    m = tirx.compile(REPO / "tests" / "build" / "iket_trace.tirx", trace=True)
    a = torch.arange(1000, device="cuda", dtype=torch.float32)
    trace = m["traced_scale"].trace(a, 1000)
    torch.cuda.synchronize()
    assert torch.equal(a, 2 * torch.arange(1000, device="cuda", dtype=torch.float32))
    rows = {(s.warp, s.name): s for s in trace.summary()}
    assert rows[(0, "cta")].per_cta == 1 and rows[(0, "half")].per_cta == 2
    assert trace.svg is None
