"""Launch arguments: Python values to tirx_arg, and the stream a launch goes on.

Tensors are any object with ``__dlpack__`` (torch, CuPy, JAX, NumPy, ...): its DLPack capsule
holds a DLManagedTensor whose first member is the DLTensor the C API reads. The capsules are
borrowed, not consumed: they stay alive (and their producers keep the memory) until the
call returns. Scalars are Python (or NumPy) integers and floats; a 128-byte ``bytes`` is an
encoded CUtensorMap for a ``T.TensorMap()`` parameter.
"""

from __future__ import annotations

import ctypes
import numbers
import sys
from typing import Any, List, Optional, Sequence, Tuple

from . import _capi

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13


def _is_torch_cuda(obj: Any) -> bool:
    # isinstance, so that a user's subclass of torch.Tensor also orders with torch's stream
    torch = sys.modules.get("torch")
    return (torch is not None and isinstance(obj, torch.Tensor)
            and bool(getattr(obj, "is_cuda", False)))


def _is_cupy(obj: Any) -> bool:
    return type(obj).__module__.startswith("cupy")


def stream_handle(stream: Any) -> Optional[int]:
    """A CUstream from an int, a torch.cuda.Stream, a CuPy stream or a ``__cuda_stream__``."""
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream: expected a CUDA stream, got a bool")
    if isinstance(stream, numbers.Integral):
        if not 0 <= int(stream) < 2**64:
            raise ValueError(f"stream: {int(stream)} is not a CUstream handle (0 .. 2**64 - 1)")
        return int(stream)
    if hasattr(stream, "__cuda_stream__"):
        cs = stream.__cuda_stream__
        return int((cs() if callable(cs) else cs)[1])
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream: expected a CUDA stream (an int, a torch.cuda.Stream, a CuPy "
                    f"stream), got {type(stream).__name__}")


def current_stream(args: Sequence[Any]) -> Optional[int]:
    """The current stream of the framework of the first GPU tensor among args (torch, CuPy)."""
    for a in args:
        if _is_torch_cuda(a):
            import torch  # type: ignore[import-not-found]

            return int(torch.cuda.current_stream(a.device).cuda_stream)
        if _is_cupy(a) and hasattr(a, "__dlpack__"):
            import cupy  # type: ignore[import-not-found]

            return int(cupy.cuda.get_current_stream().ptr)
    return None


def _capsule(obj: Any, stream: Optional[int]) -> Any:
    """obj's DLPack capsule; a GPU producer is told the stream the launch goes on."""
    device = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else None
    if device in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        try:
            # 1 is the legacy default stream in the DLPack protocol (0 is not allowed).
            return obj.__dlpack__(stream=stream or 1)
        except TypeError:
            pass
    return obj.__dlpack__()


def _tensor_pointer(capsule: Any) -> int:
    for name in (b"dltensor", b"dltensor_versioned"):
        try:
            p = _get_pointer(capsule, name)
        except ValueError:
            continue
        if name == b"dltensor_versioned":
            # DLManagedTensorVersioned: {version (2 x u32), manager_ctx, deleter, flags, dl_tensor}
            p += 8 + 3 * ctypes.sizeof(ctypes.c_void_p)
        return int(p)
    raise TypeError("__dlpack__ did not return a DLPack capsule")


def convert(func: str, args: Sequence[Any], stream: Optional[int]
            ) -> Tuple["ctypes.Array[_capi.Arg]", List[Any]]:
    """The tirx_arg array for args, and what must stay alive while the C API reads it."""
    out = (_capi.Arg * max(len(args), 1))()
    keep: List[Any] = []
    for i, a in enumerate(args):
        if isinstance(a, (bool, numbers.Integral)):
            if not -2**63 <= int(a) < 2**63:  # ctypes would wrap it silently
                raise OverflowError(f"{func}: argument {i + 1}: {int(a)} does not fit int64")
            out[i].kind, out[i].v.i = _capi.ARG_INT, int(a)
        elif isinstance(a, numbers.Real):
            out[i].kind, out[i].v.f = _capi.ARG_FLOAT, float(a)
        elif hasattr(a, "__dlpack__"):
            try:
                capsule = _capsule(a, stream)
                pointer = _tensor_pointer(capsule)
            except Exception as e:  # the producer's own error says why, not where
                raise TypeError(f"{func}: argument {i + 1}: cannot pass it through DLPack: "
                                f"{e}") from e
            keep.append(capsule)
            out[i].kind, out[i].v.tensor = _capi.ARG_TENSOR, pointer
        elif isinstance(a, (bytes, bytearray)):
            if len(a) != 128:
                raise TypeError(f"{func}: argument {i + 1}: a tensor map is 128 bytes, got "
                                f"{len(a)}")
            buf = ctypes.create_string_buffer(bytes(a), 128)
            keep.append(buf)
            out[i].kind, out[i].v.tensormap = _capi.ARG_TENSORMAP, ctypes.addressof(buf)
        else:
            raise TypeError(f"{func}: argument {i + 1}: expected a tensor (an object with "
                            f"__dlpack__), an int or a float, got {type(a).__name__}")
    return out, keep
