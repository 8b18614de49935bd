"""Runs the tests of this directory without pytest (for a machine that has none):
``python3 python/tests/run.py``. It provides the small part of pytest the tests use
(raises, skip, importorskip, mark.skipif, mark.parametrize, module-level pytestmark); with
pytest installed, ``python3 -m pytest python/tests`` is the same run."""

from __future__ import annotations

import importlib
import re
import sys
import traceback
import types
from pathlib import Path
from typing import Any, Callable, List, Optional


class Skipped(Exception):
    pass


class _Raises:
    def __init__(self, exc: Any, match: Optional[str] = None) -> None:
        self.exc, self.match = exc, match
        self.value: Any = None

    def __enter__(self) -> "_Raises":
        return self

    def __exit__(self, kind: Any, value: Any, tb: Any) -> bool:
        if kind is None:
            raise AssertionError(f"did not raise {self.exc}")
        if not issubclass(kind, self.exc):
            return False
        if self.match and not re.search(self.match, str(value)):
            raise AssertionError(f"{self.match!r} does not match {str(value)!r}")
        self.value = value
        return True


def _skip(reason: str = "") -> None:
    raise Skipped(reason)


def _importorskip(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skipped(f"no {name}")


def _skipif(cond: bool, reason: str = "") -> Callable[[Any], Any]:
    def mark(f: Any) -> Any:
        if cond:
            f.skip_reason = reason
        return f
    mark.skip_reason = reason if cond else None  # type: ignore[attr-defined]
    return mark


def _parametrize(names: str, values: List[Any]) -> Callable[[Any], Any]:
    def mark(f: Any) -> Any:
        f.params = (names, values)
        return f
    return mark


def _install_shim() -> None:
    shim = types.ModuleType("pytest")
    shim.raises = _Raises  # type: ignore[attr-defined]
    shim.skip = _skip  # type: ignore[attr-defined]
    shim.importorskip = _importorskip  # type: ignore[attr-defined]
    shim.mark = types.SimpleNamespace(skipif=_skipif, parametrize=_parametrize)  # type: ignore
    sys.modules["pytest"] = shim


def _cases(f: Any) -> List[tuple]:
    if not hasattr(f, "params"):
        return [()]
    names, values = f.params
    return [v if len(names.split(",")) > 1 else (v,) for v in values]


def main() -> int:
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    _install_shim()
    passed = failed = skipped = 0
    for path in sorted(here.glob("test_*.py")):
        try:
            module = importlib.import_module(path.stem)
        except Skipped as s:
            print(f"SKIP {path.name}: {s}")
            skipped += 1
            continue
        module_skip = getattr(getattr(module, "pytestmark", None), "skip_reason", None)
        for name in sorted(n for n in dir(module) if n.startswith("test_")):
            f = getattr(module, name)
            reason = module_skip or getattr(f, "skip_reason", None)
            for args in _cases(f):
                label = f"{path.name}::{name}{list(args) if args else ''}"
                try:
                    if reason:
                        raise Skipped(reason)
                    f(*args)
                    passed += 1
                except Skipped as s:
                    print(f"SKIP {label}: {s}")
                    skipped += 1
                except Exception:
                    print(f"FAIL {label}")
                    traceback.print_exc()
                    failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
