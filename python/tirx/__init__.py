"""tirx: a GPU kernel language and compiler, from Python.

Compile TIRx script to a module and launch its functions on tensors of any framework that
speaks DLPack (torch, CuPy, JAX, NumPy)::

    import torch, tirx

    mod = tirx.compile("examples/vector_add.tirx")       # for the current GPU
    a, b = torch.rand(1000, device="cuda"), torch.rand(1000, device="cuda")
    c = torch.empty_like(a)
    mod["vector_add"](a, b, c, 1000)                       # on torch's current stream

A thin binding of the C API (include/tirx.h) through ctypes; docs/python.md is the guide.
"""

from __future__ import annotations

import collections
import ctypes
import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from typing import IO, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _args, _capi

__all__ = [
    "CompileError", "CudaUnavailable", "Diagnostic", "Error", "Function", "KernelStats",
    "LaunchError", "Module", "SpanStats", "Trace", "check", "compile", "device_arch",
    "diagnostic_codes", "layout", "print", "__version__",
]

__version__: str = _capi.text(_capi.lib.tirx_version()) or "0.0.0"

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]
Defines = Union[Mapping[str, Any], Iterable[Tuple[str, Any]], None]


# ---------------------------------------------------------------- errors


class Error(Exception):
    """The base of tirx's exceptions."""


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning, with the notes that explain it (as the CLI prints them)."""

    severity: str                   # "error", "warning" or "note"
    message: str
    code: Optional[str]             # "E0101" (docs/diagnostics.md); None for a note
    name: Optional[str]             # "unknown-name"; None for a note
    file: Optional[str] = None      # None when the diagnostic has no location
    line: int = 0                   # 1-based; 0 without a location
    column: int = 0                 # 1-based, in bytes
    end_line: int = 0
    end_column: int = 0
    notes: Tuple["Diagnostic", ...] = field(default=())

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        head = f"{self.severity}[{self.code}]" if self.code else self.severity
        return f"{where}{head}: {self.message}"


class CompileError(Error):
    """The input does not parse, verify, lower or compile.

    ``diagnostics`` holds the errors and warnings (each with its notes); ``str(e)`` is the
    rendering of the CLI: ``FILE:LINE:COL: error[CODE]: message``, the source line, a caret.
    """

    def __init__(self, rendered: str, diagnostics: Sequence[Diagnostic], status: int) -> None:
        super().__init__(rendered.rstrip("\n"))
        self.rendered = rendered
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        self.status = status

    @property
    def errors(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


class LaunchError(Error):
    """A launch's arguments do not match the function (the message names the argument), or
    the driver failed to launch it."""


class CudaUnavailable(Error):
    """No GPU, CUDA driver or NVRTC where one is needed."""


# ---------------------------------------------------------------- diagnostics of a module


def _diagnostics(handle: Optional[int]) -> List[Diagnostic]:
    """The module's diagnostics, each note attached to the error or warning before it."""
    out: List[Diagnostic] = []
    d = _capi.Diag()
    for i in range(_capi.lib.tirx_diag_count(handle)):
        _capi.lib.tirx_diag_get(handle, i, ctypes.byref(d))
        diag = Diagnostic(
            severity=_capi.SEV_NAMES[d.severity], message=_capi.text(d.message) or "",
            code=_capi.text(d.code), name=_capi.text(d.code_name), file=_capi.text(d.file),
            line=d.line, column=d.col, end_line=d.end_line, end_column=d.end_col)
        if diag.severity == "note" and out:
            out[-1] = dataclasses.replace(out[-1], notes=out[-1].notes + (diag,))
        else:
            out.append(diag)
    return out


def _rendered(handle: Optional[int]) -> str:
    return _capi.take_string(_capi.lib.tirx_diag_render(handle)) or ""


def _raise_for(status: int, handle: Optional[int]) -> None:
    if status == _capi.OK:
        return
    if status == _capi.ERR_NOMEM:
        raise MemoryError("tirx: out of memory")
    diags = _diagnostics(handle)
    if status == _capi.ERR_CUDA:
        raise CudaUnavailable(_rendered(handle).rstrip("\n") or "no CUDA driver or NVRTC")
    raise CompileError(_rendered(handle), diags, status)


def diagnostic_codes() -> Dict[str, Tuple[str, str]]:
    """Every diagnostic code: ``{"E0101": ("unknown-name", "a name that is not defined")}``."""
    codes: Dict[str, Tuple[str, str]] = {}
    code, name, summary = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
    i = 0
    while _capi.lib.tirx_diag_code_get(i, ctypes.byref(code), ctypes.byref(name),
                                       ctypes.byref(summary)) == 0:
        codes[_capi.text(code.value) or ""] = (_capi.text(name.value) or "",
                                               _capi.text(summary.value) or "")
        i += 1
    return codes


# ---------------------------------------------------------------- sources and defines


def _read_source(source: Source, filename: Optional[str]) -> Tuple[bytes, str]:
    """The bytes of source and the name its diagnostics use."""
    if hasattr(source, "read"):
        data = source.read()
        name = filename or getattr(source, "name", None) or "<file>"
        return (data.encode() if isinstance(data, str) else bytes(data)), str(name)
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
        path = os.fspath(source)
        with open(path, "rb") as f:
            return f.read(), filename or path
    if isinstance(source, str):
        return source.encode(), filename or "<string>"
    raise TypeError(f"source: expected TIRx script text, a path or a file object, "
                    f"got {type(source).__name__}")


def _looks_like_path(s: str) -> bool:
    """One line that names a file, or that ends with .tirx (a missing file is then an error)."""
    return "\n" not in s and (s.endswith(".tirx") or os.path.isfile(s))


def _define_value(value: Any) -> str:
    """A define's VALUE: Python literals as Python writes them; a str as given (a dtype name
    like "float16", or a quoted literal like '"relu"'); a torch or NumPy dtype by name."""
    if isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    text = str(value)
    return text[len("torch."):] if text.startswith("torch.") else text


def _defines(defines: Defines) -> Tuple["ctypes.Array[_capi.Define]", int]:
    items = list(defines.items() if isinstance(defines, Mapping) else defines or ())
    arr = (_capi.Define * max(len(items), 1))()
    for i, (name, value) in enumerate(items):
        arr[i].name = str(name).encode()
        arr[i].value = _define_value(value).encode()
    return arr, len(items)


# ---------------------------------------------------------------- the device


_arch_cache: Dict[int, str] = {}


def device_arch(ordinal: int = 0) -> str:
    """The architecture to compile for on GPU ``ordinal`` ("sm_90a" on an H100/H200)."""
    if ordinal not in _arch_cache:
        dev = ctypes.c_void_p()
        err = _capi.Error()
        st = _capi.lib.tirx_device_open(ordinal, ctypes.byref(dev), ctypes.byref(err))
        if st != _capi.OK:
            raise CudaUnavailable(err.message.decode("utf-8", "replace")
                                  + "; pass target= (e.g. target=\"sm_90a\") to compile "
                                  "without a GPU")
        _arch_cache[ordinal] = _capi.text(_capi.lib.tirx_device_arch(dev)) or ""
        _capi.lib.tirx_device_close(dev)
    return _arch_cache[ordinal]


# ---------------------------------------------------------------- compiled modules


def _known(value: int) -> Optional[int]:
    """The C API's -1 (unknown) as None."""
    return None if value < 0 else value


@dataclass(frozen=True)
class KernelStats:
    """One kernel's resources: ptxas's report, or what the cubin records when the compiler's
    log has no report for the kernel; the cubin has no spill figures (then ``None``)."""

    name: str
    registers: int                  # per thread
    spill_store_bytes: Optional[int]  # None: unknown (no ptxas report in the log)
    spill_load_bytes: Optional[int]
    stack_bytes: int
    smem_bytes: int                 # static shared memory
    dyn_smem_bytes: Optional[int]   # the launch's dynamic shared memory; None if not constant
    perf_loss: Optional[str] = None  # ptxas's "Potential Performance Loss" note, if any


class Function:
    """A host function of a compiled module: ``f(*args, stream=None)`` launches it."""

    def __init__(self, module: "Module", name: str) -> None:
        self.module = module
        self.name = name
        self._handle: Optional[int] = None

    def __repr__(self) -> str:
        return f"<tirx.Function {self.name}>"

    def _args(self, args: Sequence[Any], stream: Optional[int]) -> Tuple[Any, List[Any]]:
        return _args.convert(self.name, args, stream)

    def check(self, *args: Any) -> None:
        """Checks args as a launch does (count, kinds, dtypes, shapes, strides, device,
        alignment, the launch configuration), without a GPU; raises LaunchError."""
        arr, keep = self._args(args, None)
        err = _capi.Error()
        st = _capi.lib.tirx_check_args(self.module._handle, self.name.encode(), arr, len(args),
                                       ctypes.byref(err))
        del keep
        if st != _capi.OK:
            raise LaunchError(err.message.decode("utf-8", "replace"))

    def simulate(self, *args: Any) -> None:
        """Runs the function in the CPU simulator on host arrays (NumPy, or any DLPack tensor
        in CPU memory) and writes the kernels' outputs into them: no GPU or CUDA toolkit
        (compile with ``no_binary=True``). Raises LaunchError for a mismatched argument and
        for a kernel error, which names the .tirx line, the thread and the CTA."""
        arr, keep = self._args(args, None)
        err = _capi.Error()
        st = _capi.lib.tirx_simulate(self.module._handle, self.name.encode(), arr, len(args),
                                     ctypes.byref(err))
        del keep
        if st != _capi.OK:
            raise LaunchError(err.message.decode("utf-8", "replace"))

    def _load(self) -> int:
        if self._handle is None:
            fn = ctypes.c_void_p()
            err = _capi.Error()
            st = _capi.lib.tirx_get_function(self.module._handle, self.name.encode(),
                                             ctypes.byref(fn), ctypes.byref(err))
            message = err.message.decode("utf-8", "replace")
            if st == _capi.ERR_CUDA:
                raise CudaUnavailable(message)
            if st != _capi.OK:
                raise LaunchError(message)
            self._handle = fn.value
        return self._handle  # type: ignore[return-value]

    def trace(self, *args: Any, records_per_warp: int = 0, svg: bool = False,
              svg_sms: int = 0) -> Trace:
        """Runs the function once on the GPU as a call does (on the legacy default stream) and
        waits; its kernels, compiled with ``trace=True``, record their T.cuda.iket events
        (``records_per_warp`` per warp, 0: 4096). Returns the Trace (with its SVG timeline of
        the ``svg_sms`` lowest SMs, 0: 4, when ``svg``). Raises LaunchError as a call does,
        and when no kernel records events."""
        arr, keep = self._args(args, None)
        fn = self._load()
        js, pic, err = ctypes.c_void_p(), ctypes.c_void_p(), _capi.Error()
        o = _trace_options(records_per_warp, svg_sms)
        st = _capi.lib.tirx_launch_trace_to(fn, arr, len(args), ctypes.byref(o), ctypes.byref(js),
                                            ctypes.byref(pic) if svg else None, ctypes.byref(err))
        del keep
        return _take_trace(st, err, js, pic)

    def simulate_trace(self, *args: Any, records_per_warp: int = 0, svg: bool = False,
                       svg_sms: int = 0) -> Trace:
        """simulate() of a module compiled with ``trace=True`` (and ``no_binary=True``),
        returning its events as trace() does; time is the simulator's model (each statement a
        thread executes is one nanosecond: docs/simulator.md)."""
        arr, keep = self._args(args, None)
        js, pic, err = ctypes.c_void_p(), ctypes.c_void_p(), _capi.Error()
        o = _trace_options(records_per_warp, svg_sms)
        st = _capi.lib.tirx_simulate_trace_to(self.module._handle, self.name.encode(), arr,
                                              len(args), ctypes.byref(o), ctypes.byref(js),
                                              ctypes.byref(pic) if svg else None,
                                              ctypes.byref(err))
        del keep
        return _take_trace(st, err, js, pic)

    def __call__(self, *args: Any, stream: Any = None) -> None:
        """Launches the function (asynchronously, like a CUDA launch) on ``stream``: by default
        the current stream of torch (or CuPy) when a tensor argument is one of theirs, else the
        legacy default stream. Raises LaunchError naming a mismatched argument."""
        s = _args.stream_handle(stream) if stream is not None else _args.current_stream(args)
        arr, keep = self._args(args, s)
        try:
            fn = self._load()
        except Error:
            self.check(*args)  # a mismatched argument is the better error
            raise
        err = _capi.Error()
        st = _capi.lib.tirx_launch(fn, arr, len(args), s, ctypes.byref(err))
        del keep
        if st != _capi.OK:
            raise LaunchError(err.message.decode("utf-8", "replace"))


@dataclass(frozen=True)
class SpanStats:
    """One span name of one warp index (its warp in the CTA) over every CTA that recorded it:
    how many per CTA, their mean length and their total per CTA, in microseconds."""
    kernel: str
    warp: int
    name: str
    per_cta: float
    mean_us: float
    total_us: float


@dataclass(frozen=True)
class Trace:
    """The T.cuda.iket events of one traced run: ``json``, a Chrome / Perfetto trace
    (docs/cli.md, "Tracing"), and ``svg``, its timeline (when asked for)."""
    json: str
    svg: Optional[str] = None

    def summary(self) -> List[SpanStats]:
        """Each span name of each warp index, over the CTAs (where the time of a warp role
        goes: a warp that mostly waits shows it here), by kernel, warp and first start."""
        events = json.loads(self.json)["traceEvents"]
        track_name = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                      if e["ph"] == "M" and e["name"] == "thread_name"}
        spans: Dict[Tuple[str, int, str], List[float]] = collections.defaultdict(list)
        tracks: Dict[Tuple[str, int], set] = collections.defaultdict(set)
        first: Dict[Tuple[str, int, str], float] = {}
        for e in events:
            if e["ph"] != "X":
                continue
            m = re.fullmatch(r"(.*) CTA (\d+) warp (\d+)", track_name.get((e["pid"], e["tid"]), ""))
            if not m:
                continue
            kernel, warp = m.group(1), int(m.group(3))
            key = (kernel, warp, e["name"])
            spans[key].append(float(e["dur"]))
            tracks[(kernel, warp)].add((e["pid"], e["tid"]))
            first[key] = min(first.get(key, float(e["ts"])), float(e["ts"]))
        out = []
        for key in sorted(spans, key=lambda k: (k[0], k[1], first[k])):
            n, durs = len(tracks[key[:2]]), spans[key]
            out.append(SpanStats(kernel=key[0], warp=key[1], name=key[2],
                                 per_cta=len(durs) / n, mean_us=sum(durs) / len(durs),
                                 total_us=sum(durs) / n))
        return out

    def summary_text(self) -> str:
        """summary() as a table."""
        rows = ["kernel                          warp  span                 per CTA    mean us"
                "  total us"]
        for s in self.summary():
            rows.append(f"{s.kernel[:30]:30s} {s.warp:5d}  {s.name[:20]:20s} {s.per_cta:8.1f} "
                        f"{s.mean_us:10.3f} {s.total_us:9.3f}")
        return "\n".join(rows) + "\n"


def _trace_options(records_per_warp: int, svg_sms: int) -> Any:
    o = _capi.TraceOptions()
    o.records_per_warp, o.svg_sms = int(records_per_warp), int(svg_sms)
    return o


def _take_trace(st: int, err: Any, js: Any, svg: Any) -> Trace:
    text = _capi.take_string(js.value)
    picture = _capi.take_string(svg.value)
    if st != _capi.OK:
        message = err.message.decode("utf-8", "replace")
        raise CudaUnavailable(message) if st == _capi.ERR_CUDA else LaunchError(message)
    return Trace(json=text or "", svg=picture)


class Module:
    """A compiled module: its CUDA, PTX, cubin, kernels' resources and functions."""

    def __init__(self, handle: int, target: str) -> None:
        self._handle: Optional[int] = handle
        self.target = target
        self._functions: Dict[str, Function] = {}

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            _capi.lib.tirx_module_free(self._handle)
            self._handle = None

    def __repr__(self) -> str:
        return f"<tirx.Module {self.target}: {', '.join(self.functions)}>"

    @property
    def cuda(self) -> str:
        """The generated CUDA C++."""
        return _capi.text(_capi.lib.tirx_module_cuda(self._handle)) or ""

    @property
    def ptx(self) -> Optional[str]:
        """The PTX (None when compiled with no_binary=True)."""
        return _capi.text(_capi.lib.tirx_module_ptx(self._handle))

    @property
    def cubin(self) -> Optional[bytes]:
        """The cubin (None when compiled with no_binary=True)."""
        size = ctypes.c_size_t()
        p = _capi.lib.tirx_module_cubin(self._handle, ctypes.byref(size))
        return ctypes.string_at(p, size.value) if p else None

    @property
    def log(self) -> Optional[str]:
        """The CUDA compiler's log."""
        return _capi.text(_capi.lib.tirx_module_log(self._handle))

    @property
    def host(self) -> str:
        """The host functions as TIRx script (argument checks and launches)."""
        return _capi.take_string(_capi.lib.tirx_module_host(self._handle)) or ""

    def sass(self) -> str:
        """The cubin's SASS, disassembled by the CUDA toolkit's nvdisasm ($TIRX_NVDISASM, the
        toolkit, PATH, or ``pip install nvidia-cuda-nvdisasm``). Raises CudaUnavailable
        without nvdisasm, ValueError for a module compiled with no_binary=True."""
        return self._disassembly(_capi.lib.tirx_module_sass)

    def sass_lines(self) -> str:
        """That SASS counted by script line: per kernel, its instructions, then per line of
        the script the instructions it became, their most frequent opcodes and the line's
        text (a static profile; compile with lineinfo=True for the lines). The errors of
        sass()."""
        return self._disassembly(_capi.lib.tirx_module_sass_lines)

    def _disassembly(self, fn) -> str:
        out = ctypes.c_void_p()
        err = _capi.Error()
        st = fn(self._handle, ctypes.byref(out), ctypes.byref(err))
        message = err.message.decode("utf-8", "replace")
        if st == _capi.ERR_USAGE:
            raise ValueError(message)
        if st != _capi.OK:
            raise CudaUnavailable(message)
        return _capi.take_string(out.value) or ""

    @property
    def cached(self) -> bool:
        """Whether the module came from the on-disk cache."""
        return bool(_capi.lib.tirx_module_cached(self._handle))

    @property
    def kernels(self) -> List[KernelStats]:
        """Each kernel's registers, spills, stack and shared memory (empty without a binary)."""
        out = []
        k = _capi.KernelStats()
        for i in range(_capi.lib.tirx_kernel_count(self._handle)):
            _capi.lib.tirx_kernel_stats_get(self._handle, i, ctypes.byref(k))
            out.append(KernelStats(
                name=_capi.text(k.name) or "", registers=k.registers,
                spill_store_bytes=_known(k.spill_store_bytes),
                spill_load_bytes=_known(k.spill_load_bytes),
                stack_bytes=k.stack_bytes, smem_bytes=k.smem_bytes,
                dyn_smem_bytes=None if k.dyn_smem_bytes < 0 else k.dyn_smem_bytes,
                perf_loss=_capi.text(k.perf_loss)))
        return out

    @property
    def warnings(self) -> List[Diagnostic]:
        return [d for d in _diagnostics(self._handle) if d.severity == "warning"]

    @property
    def functions(self) -> List[str]:
        """The names of the functions a launch can call."""
        return re.findall(r"^\s*def (\w+)\(", self.host, re.M)

    def __getitem__(self, name: str) -> Function:
        if name not in self._functions:
            if name not in self.functions:
                raise KeyError(f"the module has no function '{name}' (it has "
                               f"{', '.join(self.functions) or 'none'})")
            self._functions[name] = Function(self, name)
        return self._functions[name]

    def __contains__(self, name: object) -> bool:
        return name in self.functions

    def simulate(self, name: str, *args: Any) -> None:
        """``module.simulate("name", *arrays)``: runs function ``name`` in the CPU simulator
        (Function.simulate)."""
        self[name].simulate(*args)


_OPTIONS = {"fast_math", "lineinfo", "use_nvcc", "nvcc", "verify_each", "cache_dir",
            "no_cache", "no_binary", "nvrtc_options", "filename", "max_input_size",
            "import_dirs", "trace"}

ImportDirs = Optional[Sequence[Union[str, "os.PathLike[str]"]]]


def _set_import_dirs(o: Any, dirs: ImportDirs) -> Any:
    """Points o at the import directories; returns the array, which must outlive the call."""
    paths = [os.fspath(d).encode() for d in dirs or ()]
    array = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    o.import_dirs, o.n_import_dirs = array, len(paths)
    return array


def compile(source: Source, target: Optional[str] = None, defines: Defines = None,
            **options: Any) -> Module:
    """Compiles TIRx script (text, a path or a file object) for ``target`` ("sm_80", "sm_90a",
    "sm_100a"; None: the current GPU's architecture, CudaUnavailable without one).

    ``defines`` override module-level constants as ``-D NAME=VALUE`` does (a mapping or
    pairs). Options: ``fast_math``, ``lineinfo``, ``use_nvcc`` and ``nvcc`` (a path),
    ``verify_each``, ``cache_dir``, ``no_cache``, ``no_binary`` (stop after generating CUDA:
    no toolkit needed), ``nvrtc_options`` (a list of NVRTC options, after tirx's own and
    $TIRX_NVRTC_EXTRA_OPTS), ``filename`` (the name diagnostics use; imports of .tirx files
    are searched in its directory), ``import_dirs`` (directories searched next, in order),
    ``max_input_size`` (refuse a longer text, in bytes; default 64 MiB), ``trace`` (the
    T.cuda.iket calls record events, for Function.trace and Function.simulate_trace).
    Raises CompileError (with the diagnostics) or CudaUnavailable.
    """
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise TypeError(f"compile() got unknown options {', '.join(unknown)} "
                        f"(known: {', '.join(sorted(_OPTIONS))})")
    text, name = _read_source(source, options.get("filename"))
    arch = target if target is not None else device_arch()
    defs, ndefs = _defines(defines)
    o = _capi.Options()
    o.arch = arch.encode()
    o.want_ptx = 1
    for flag in ("fast_math", "lineinfo", "use_nvcc", "verify_each", "no_cache", "no_binary",
                 "trace"):
        setattr(o, flag, int(bool(options.get(flag, False))))
    for path in ("nvcc", "cache_dir"):
        if options.get(path) is not None:
            setattr(o, path, os.fspath(options[path]).encode())
    extra = [str(x).encode() for x in options.get("nvrtc_options") or ()]
    nvrtc = (ctypes.c_char_p * max(len(extra), 1))(*extra)
    o.nvrtc_options, o.n_nvrtc_options = nvrtc, len(extra)
    o.max_input_size = int(options.get("max_input_size") or 0)
    dirs = _set_import_dirs(o, options.get("import_dirs"))
    handle = ctypes.c_void_p()
    st = _capi.lib.tirx_compile(text, len(text), name.encode(), defs, ndefs, ctypes.byref(o),
                                ctypes.byref(handle))
    if st != _capi.OK:
        try:
            _raise_for(st, handle.value or 0)
        finally:
            _capi.lib.tirx_module_free(handle)
    return Module(handle.value or 0, arch)


# ---------------------------------------------------------------- print, check, layout


def _parsed(source: Source, defines: Defines, filename: Optional[str],
            import_dirs: ImportDirs) -> int:
    """A parsed and verified module handle; CompileError (and nothing leaked) otherwise."""
    text, name = _read_source(source, filename)
    defs, ndefs = _defines(defines)
    o = _capi.Options()
    dirs = _set_import_dirs(o, import_dirs)
    handle = ctypes.c_void_p()
    st = _capi.lib.tirx_parse_with(text, len(text), name.encode(), defs, ndefs, ctypes.byref(o),
                                   ctypes.byref(handle))
    if st == _capi.OK:
        st = _capi.lib.tirx_verify(handle)
    if st != _capi.OK:
        try:
            _raise_for(st, handle.value or 0)
        finally:
            _capi.lib.tirx_module_free(handle)
    return handle.value or 0


def check(source: Source, defines: Defines = None, filename: Optional[str] = None,
          import_dirs: ImportDirs = None) -> List[Diagnostic]:
    """Parses and verifies TIRx script, as ``tirx check``; returns its warnings, raises
    CompileError on an error. ``import_dirs``: as compile's."""
    handle = _parsed(source, defines, filename, import_dirs)
    try:
        return [d for d in _diagnostics(handle) if d.severity == "warning"]
    finally:
        _capi.lib.tirx_module_free(handle)


def print(source: Source, defines: Defines = None, filename: Optional[str] = None,
          import_dirs: ImportDirs = None) -> str:
    """The canonical form of TIRx script, as ``tirx print`` writes it. ``import_dirs``: as
    compile's."""
    handle = _parsed(source, defines, filename, import_dirs)
    try:
        return _capi.take_string(_capi.lib.tirx_print(handle)) or ""
    finally:
        _capi.lib.tirx_module_free(handle)


def layout(layout: str, shape: Sequence[int], at: Optional[Sequence[int]] = None,
           dtype: Optional[str] = None) -> str:
    """Where each element of ``shape`` lands under ``layout`` (written as in TIRx script), as
    ``tirx layout`` prints it: one line ``(i, j) -> {axis=v, ...}`` per index, or only the
    index ``at``; with a dtype, a swizzled layout shows each element's bank. Raises
    CompileError for a layout that does not parse or admit the shape, ValueError for a bad
    shape, index or dtype."""
    dims = (ctypes.c_longlong * max(len(shape), 1))(*shape)
    where = (ctypes.c_longlong * max(len(at), 1))(*at) if at is not None else None
    if at is not None and len(at) != len(shape):
        raise ValueError(f"at has {len(at)} entries for a shape of {len(shape)} dimensions")
    out, diags = ctypes.c_void_p(), ctypes.c_void_p()
    st = _capi.lib.tirx_layout_describe(layout.encode(), dims, len(shape), where,
                                        dtype.encode() if dtype else None, ctypes.byref(out),
                                        ctypes.byref(diags))
    try:
        text = _capi.take_string(out.value)
        if st == _capi.ERR_USAGE:
            raise ValueError("; ".join(d.message for d in _diagnostics(diags.value or 0)))
        _raise_for(st, diags.value or 0)
        return text or ""
    finally:
        _capi.lib.tirx_module_free(diags)
