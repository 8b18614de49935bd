"""The C API of include/tirx.h through ctypes: the library, its structs and signatures.

The library is found, in order, at ``$TIRX_LIBRARY``, next to this package (an installed
wheel), or in the ``build/`` directory of the source tree this package sits in (running from
a checkout with ``PYTHONPATH=python`` after ``make``). Nothing else of tirx is loaded: no
Python extension module, only libtirx.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any, List, Optional

# tirx_status
OK = 0
ERR_INPUT = 1
ERR_USAGE = 2
ERR_CUDA = 3
ERR_NOMEM = 4
ERR_INTERNAL = 70

# tirx_severity
SEV_NAMES = ("error", "warning", "note")

# tirx_arg_kind
ARG_TENSOR = 0
ARG_INT = 1
ARG_FLOAT = 2
ARG_TENSORMAP = 3


class Define(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class Diag(ctypes.Structure):
    _fields_ = [
        ("severity", ctypes.c_int),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_int),
        ("col", ctypes.c_int),
        ("end_line", ctypes.c_int),
        ("end_col", ctypes.c_int),
        ("message", ctypes.c_char_p),
        ("code", ctypes.c_char_p),
        ("code_name", ctypes.c_char_p),
    ]


PrintFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)


class Options(ctypes.Structure):
    _fields_ = [
        ("arch", ctypes.c_char_p),
        ("fast_math", ctypes.c_int),
        ("lineinfo", ctypes.c_int),
        ("use_nvcc", ctypes.c_int),
        ("nvcc", ctypes.c_char_p),
        ("want_ptx", ctypes.c_int),
        ("verify_each", ctypes.c_int),
        ("print_after", ctypes.c_char_p),
        ("print_fn", PrintFn),
        ("print_user", ctypes.c_void_p),
        ("cache_dir", ctypes.c_char_p),
        ("no_cache", ctypes.c_int),
        ("no_binary", ctypes.c_int),
        ("nvrtc_options", ctypes.POINTER(ctypes.c_char_p)),
        ("n_nvrtc_options", ctypes.c_size_t),
        ("max_input_size", ctypes.c_size_t),
        ("trace", ctypes.c_int),
        ("import_dirs", ctypes.POINTER(ctypes.c_char_p)),
        ("n_import_dirs", ctypes.c_size_t),
    ]


class TraceOptions(ctypes.Structure):
    _fields_ = [
        ("records_per_warp", ctypes.c_size_t),
        ("svg_sms", ctypes.c_uint),
    ]


class KernelStats(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("registers", ctypes.c_int),
        ("spill_store_bytes", ctypes.c_int),
        ("spill_load_bytes", ctypes.c_int),
        ("stack_bytes", ctypes.c_int),
        ("smem_bytes", ctypes.c_int),
        ("dyn_smem_bytes", ctypes.c_longlong),
        ("perf_loss", ctypes.c_char_p),
    ]


class ArgValue(ctypes.Union):
    _fields_ = [
        ("tensor", ctypes.c_void_p),
        ("i", ctypes.c_longlong),
        ("f", ctypes.c_double),
        ("tensormap", ctypes.c_void_p),
    ]


class Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", ArgValue)]


class Error(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 512)]


def _candidates() -> List[Path]:
    here = Path(__file__).resolve().parent
    found = []
    if os.environ.get("TIRX_LIBRARY"):
        found.append(Path(os.environ["TIRX_LIBRARY"]))
    found.append(here / "libtirx.so")
    found.append(here.parent.parent / "build" / "libtirx.so")
    return found


def _load() -> ctypes.CDLL:
    tried = _candidates()
    for path in tried:
        if path.is_file():
            return ctypes.CDLL(str(path))
    raise ImportError(
        "tirx: libtirx.so not found (looked at "
        + ", ".join(str(p) for p in tried)
        + "); install the package (pip install ./python), build it (make) and run with "
        "PYTHONPATH=python, or set TIRX_LIBRARY"
    )


lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_SIGNATURES: List[Any] = [
    ("tirx_version", _S, []),
    ("tirx_parse", ctypes.c_int,
     [_S, ctypes.c_size_t, _S, ctypes.POINTER(Define), ctypes.c_size_t, ctypes.POINTER(_P)]),
    ("tirx_parse_with", ctypes.c_int,
     [_S, ctypes.c_size_t, _S, ctypes.POINTER(Define), ctypes.c_size_t, ctypes.POINTER(Options),
      ctypes.POINTER(_P)]),
    ("tirx_verify", ctypes.c_int, [_P]),
    ("tirx_print", _P, [_P]),
    ("tirx_diag_count", ctypes.c_size_t, [_P]),
    ("tirx_diag_get", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(Diag)]),
    ("tirx_diag_render", _P, [_P]),
    ("tirx_diag_code_get", ctypes.c_int,
     [ctypes.c_size_t, ctypes.POINTER(_S), ctypes.POINTER(_S), ctypes.POINTER(_S)]),
    ("tirx_module_free", None, [_P]),
    ("tirx_free", None, [_P]),
    ("tirx_layout_describe", ctypes.c_int,
     [_S, ctypes.POINTER(ctypes.c_longlong), ctypes.c_int, ctypes.POINTER(ctypes.c_longlong), _S,
      ctypes.POINTER(_P), ctypes.POINTER(_P)]),
    ("tirx_compile", ctypes.c_int,
     [_S, ctypes.c_size_t, _S, ctypes.POINTER(Define), ctypes.c_size_t, ctypes.POINTER(Options),
      ctypes.POINTER(_P)]),
    ("tirx_module_cuda", _S, [_P]),
    ("tirx_module_ptx", _S, [_P]),
    ("tirx_module_cubin", _P, [_P, ctypes.POINTER(ctypes.c_size_t)]),
    ("tirx_module_log", _S, [_P]),
    ("tirx_module_host", _P, [_P]),
    ("tirx_module_sass", ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.POINTER(Error)]),
    ("tirx_module_sass_lines", ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.POINTER(Error)]),
    ("tirx_module_cached", ctypes.c_int, [_P]),
    ("tirx_kernel_count", ctypes.c_size_t, [_P]),
    ("tirx_kernel_stats_get", ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(KernelStats)]),
    ("tirx_device_open", ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_P), ctypes.POINTER(Error)]),
    ("tirx_device_close", None, [_P]),
    ("tirx_device_arch", _S, [_P]),
    ("tirx_get_function", ctypes.c_int, [_P, _S, ctypes.POINTER(_P), ctypes.POINTER(Error)]),
    ("tirx_launch", ctypes.c_int,
     [_P, ctypes.POINTER(Arg), ctypes.c_size_t, _P, ctypes.POINTER(Error)]),
    ("tirx_check_args", ctypes.c_int,
     [_P, _S, ctypes.POINTER(Arg), ctypes.c_size_t, ctypes.POINTER(Error)]),
    ("tirx_simulate", ctypes.c_int,
     [_P, _S, ctypes.POINTER(Arg), ctypes.c_size_t, ctypes.POINTER(Error)]),
    ("tirx_launch_trace_to", ctypes.c_int,
     [_P, ctypes.POINTER(Arg), ctypes.c_size_t, ctypes.POINTER(TraceOptions), ctypes.POINTER(_P),
      ctypes.POINTER(_P), ctypes.POINTER(Error)]),
    ("tirx_simulate_trace_to", ctypes.c_int,
     [_P, _S, ctypes.POINTER(Arg), ctypes.c_size_t, ctypes.POINTER(TraceOptions),
      ctypes.POINTER(_P), ctypes.POINTER(_P), ctypes.POINTER(Error)]),
]
for _name, _res, _args in _SIGNATURES:
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def take_string(p: Optional[int]) -> Optional[str]:
    """A heap string of the library as str, freed with tirx_free."""
    if not p:
        return None
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib.tirx_free(p)


def text(s: Optional[bytes]) -> Optional[str]:
    return None if s is None else s.decode("utf-8", "replace")
