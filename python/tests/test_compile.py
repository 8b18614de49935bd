"""Compiling without a GPU: sources (text, path, file), defines, options, the products of a
compile (CUDA always; PTX, cubin and kernel resources with NVRTC), extra NVRTC options."""

from __future__ import annotations

import io
import os
import tempfile

import pytest

import tirx
from common import AXPB, REPO, VECTOR_ADD, gpu_arch, have_nvrtc, only_kernel

needs_nvrtc = pytest.mark.skipif(not have_nvrtc(), reason="no NVRTC")


def test_version() -> None:
    assert tirx.__version__.count(".") == 2


def test_compile_text_to_cuda() -> None:
    m = tirx.compile(AXPB, target="sm_90a", no_binary=True)
    assert "__global__" in m.cuda and "axpb_kernel" in m.cuda
    assert m.functions == ["axpb"] and "axpb" in m
    assert m.cubin is None and m.ptx is None and m.kernels == []
    assert m.target == "sm_90a"


def test_sources_path_str_and_file() -> None:
    by_path = tirx.compile(VECTOR_ADD, target="sm_80", no_binary=True)
    lines = VECTOR_ADD.read_text().splitlines()
    first = next(i for i, line in enumerate(lines, 1) if line.startswith("def vector_add"))
    assert f'#line {first} "{VECTOR_ADD}"' in by_path.cuda
    with open(VECTOR_ADD) as f:
        by_file = tirx.compile(f, target="sm_80", no_binary=True)
    assert by_file.cuda == by_path.cuda
    named = [tirx.compile(VECTOR_ADD, target="sm_80", no_binary=True, filename="v.tirx"),
             tirx.compile(str(VECTOR_ADD), target="sm_80", no_binary=True, filename="v.tirx"),
             tirx.compile(VECTOR_ADD.read_text(), target="sm_80", no_binary=True,
                          filename="v.tirx"),
             tirx.compile(io.BytesIO(VECTOR_ADD.read_bytes()), target="sm_80", no_binary=True,
                          filename="v.tirx")]
    assert all(m.cuda == named[0].cuda for m in named)
    assert f'#line {first} "v.tirx"' in named[0].cuda


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        tirx.compile("no/such/kernel.tirx", target="sm_90a")


def test_defines_override_constants() -> None:
    default = tirx.compile(AXPB, target="sm_90a", no_binary=True)
    wide = tirx.compile(AXPB, target="sm_90a", defines={"BLOCK": 256}, no_binary=True)
    pairs = tirx.compile(AXPB, target="sm_90a", defines=[("BLOCK", 256)], no_binary=True)
    assert "__launch_bounds__(128)" in default.cuda
    assert "__launch_bounds__(256)" in wide.cuda
    assert wide.cuda == pairs.cuda


def test_define_of_undeclared_constant() -> None:
    with pytest.raises(tirx.CompileError) as e:
        tirx.compile(AXPB, target="sm_90a", defines={"BLOCKS": 64}, no_binary=True)
    assert e.value.diagnostics[0].code == "E0302"
    assert "did you mean 'BLOCK'" in str(e.value)


def test_unknown_option() -> None:
    with pytest.raises(TypeError, match="fastmath"):
        tirx.compile(AXPB, target="sm_90a", fastmath=True)


def test_unknown_target() -> None:
    with pytest.raises(tirx.CompileError) as e:
        tirx.compile(AXPB, target="sm_75", no_binary=True)
    assert e.value.diagnostics[0].code == "E0803"


@pytest.mark.skipif(gpu_arch() is not None, reason="a GPU is present")
def test_no_target_without_gpu() -> None:
    with pytest.raises(tirx.CudaUnavailable, match="target="):
        tirx.compile(AXPB)


@needs_nvrtc
def test_binary_ptx_and_kernels() -> None:
    with tempfile.TemporaryDirectory() as cache:
        m = tirx.compile(AXPB, target="sm_90a", cache_dir=cache)
        assert m.cubin is not None and m.cubin[:4] == b"\x7fELF"
        assert m.ptx is not None and ".entry axpb_kernel" in m.ptx
        k = only_kernel(m, "axpb_kernel")
        assert k.smem_bytes == 0 and k.dyn_smem_bytes == 0 and k.stack_bytes == 0
        assert not m.cached
        hit = tirx.compile(AXPB, target="sm_90a", cache_dir=cache)
        assert hit.cached
        assert only_kernel(hit, "axpb_kernel").registers == k.registers
        assert k.perf_loss is None and only_kernel(hit, "axpb_kernel").perf_loss is None


@needs_nvrtc
def test_kernel_perf_loss() -> None:
    # ptxas serializes this kernel's wgmma (an accumulator read while a product may run);
    # the note reaches KernelStats, from a fresh compile and from the cache alike
    source = REPO / "tests" / "tools" / "perf_loss.tirx"
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(2):
            m = tirx.compile(source, target="sm_90a", cache_dir=cache)
            k = only_kernel(m, "serialized_kernel")
            assert k.perf_loss is not None and "wgmma.mma_async instructions are serialized" in k.perf_loss


@needs_nvrtc
def test_sass() -> None:
    m = tirx.compile(AXPB, target="sm_90a")
    saved = os.environ.get("TIRX_NVDISASM")
    try:
        os.environ["TIRX_NVDISASM"] = "/nonexistent/nvdisasm"
        with pytest.raises(tirx.CudaUnavailable, match="TIRX_NVDISASM=/nonexistent/nvdisasm"):
            m.sass()
        if saved is None:
            del os.environ["TIRX_NVDISASM"]
        else:
            os.environ["TIRX_NVDISASM"] = saved
        try:
            sass = m.sass()
        except tirx.CudaUnavailable:
            pytest.skip("no nvdisasm")
        assert ".text.axpb_kernel:" in sass and "EXIT" in sass
        lines = tirx.compile(AXPB, target="sm_90a", lineinfo=True).sass_lines()
        assert lines.startswith("axpb_kernel: ") and " instructions\n" in lines
        assert "EXIT" in lines
        # compiled with line information, the SASS names the script's lines
        assert "//## File" not in sass
        lined = tirx.compile(AXPB, target="sm_90a", lineinfo=True).sass()
        assert "//## File" in lined and ", line " in lined
    finally:
        if saved is None:
            os.environ.pop("TIRX_NVDISASM", None)
        else:
            os.environ["TIRX_NVDISASM"] = saved
    with pytest.raises(ValueError, match="no cubin"):
        tirx.compile(AXPB, target="sm_90a", no_binary=True).sass()


@needs_nvrtc
def test_nvrtc_options() -> None:
    saved = os.environ.pop("TIRX_NVRTC_EXTRA_OPTS", None)
    try:
        plain = tirx.compile(AXPB, target="sm_90a", no_cache=True)
        lineinfo = tirx.compile(AXPB, target="sm_90a", no_cache=True,
                                nvrtc_options=["-lineinfo"])
        assert ".loc" not in (plain.ptx or "") and ".loc" in (lineinfo.ptx or "")
        os.environ["TIRX_NVRTC_EXTRA_OPTS"] = "'-line'info"
        assert ".loc" in (tirx.compile(AXPB, target="sm_90a", no_cache=True).ptx or "")
        with pytest.raises(tirx.CompileError, match="no-such-option") as e:
            tirx.compile(AXPB, target="sm_90a", no_cache=True,
                         nvrtc_options=["--no-such-option"])
        assert e.value.diagnostics[0].code == "E0805"
    finally:
        os.environ.pop("TIRX_NVRTC_EXTRA_OPTS", None)
        if saved is not None:
            os.environ["TIRX_NVRTC_EXTRA_OPTS"] = saved


def test_imports_resolve_against_the_path_and_import_dirs() -> None:
    lib = ("N = 64\n\n"
           "@T.macro\n"
           "def fill(A, v):\n"
           "    for i in range(N):\n"
           "        A[i] = v\n")
    main = ("from lib import N, fill\n\n"
            "@T.prim_func\n"
            "def f(A: T.Buffer((N,), \"float32\")):\n"
            "    fill(A, T.float32(1.0))\n")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "lib.tirx"), "w") as f:
            f.write(lib)
        path = os.path.join(d, "main.tirx")
        with open(path, "w") as f:
            f.write(main)
        printed = tirx.print(path)
        assert "T.Buffer((64,)" in printed and "for i in range(64)" in printed
        with pytest.raises(tirx.CompileError, match="no module named 'lib'"):
            tirx.print(main)
        assert tirx.print(main, import_dirs=[d]) == printed
        assert tirx.check(main, filename=path) == []
        m = tirx.compile(main, target="sm_80", no_binary=True, import_dirs=[d])
        assert m.functions == ["f"]
