"""Errors are exceptions: CompileError carries the diagnostics (file, line, column, code,
message, notes) and renders them as the CLI does; print and check; the code table."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import tirx
from common import REPO

UNKNOWN_NAME = '''@T.prim_func
def f(C: T.Buffer((4,), "int32")):
    count = 1
    C[0] = cuont
'''

UNCLOSED = '''@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.max(A[1], A[2]]
'''


def test_compile_error_fields() -> None:
    with pytest.raises(tirx.CompileError) as e:
        tirx.compile(UNKNOWN_NAME, target="sm_90a", filename="k.tirx", no_binary=True)
    (d,) = e.value.diagnostics
    assert (d.severity, d.file, d.line, d.column, d.end_line, d.end_column) == \
        ("error", "k.tirx", 4, 12, 4, 17)
    assert (d.code, d.name) == ("E0101", "unknown-name")
    assert d.message == "name 'cuont' is not defined; did you mean 'count'?"
    assert d.notes == ()
    assert e.value.errors == [d]
    assert str(d) == "k.tirx:4:12: error[E0101]: " + d.message


def test_rendered_like_the_cli() -> None:
    tirx_cli = _cli()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bad.tirx"
        path.write_text(UNCLOSED)
        with pytest.raises(tirx.CompileError) as e:
            tirx.check(path)
        cli = subprocess.run([tirx_cli, "check", str(path)], capture_output=True, text=True)
    assert cli.returncode == 1
    assert e.value.rendered == cli.stderr
    assert str(e.value) == cli.stderr.rstrip("\n")


def _cli() -> str:
    """The tirx command: the wheel's (beside this Python), else the build tree's."""
    for found in (Path(sys.executable).parent / "tirx", REPO / "build" / "tirx"):
        if found.exists():
            return str(found)
    pytest.skip("no tirx command")


def test_notes_follow_their_error() -> None:
    with pytest.raises(tirx.CompileError) as e:
        tirx.check(UNCLOSED)
    (d,) = e.value.diagnostics
    assert d.code == "E0001" and d.line == 3
    (note,) = d.notes
    assert note.severity == "note" and note.code is None and "to close '('" in note.message


def test_print_and_check() -> None:
    source = "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n" \
             "        A[i] = 1.0\n"
    printed = tirx.print(source)
    assert "A[i] = T.float32(1.0)" in printed
    assert tirx.print(printed) == printed
    assert tirx.check(source) == []
    with pytest.raises(tirx.CompileError) as e:
        tirx.print(UNKNOWN_NAME)
    assert e.value.diagnostics[0].code == "E0101"


def test_print_defines() -> None:
    source = "N = 4\n\n\n@T.prim_func\ndef f(A: T.Buffer((N,), \"float32\")):\n    A[0] = 1.0\n"
    assert 'T.Buffer((8,), "float32")' in tirx.print(source, defines={"N": 8})


def test_check_returns_warnings() -> None:
    source = ("@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\", layout=T.TileLayout("
              "T.S[8:1] + T.S[8:1]))):\n    A[0] = 1.0\n")
    (w,) = tirx.check(source)
    assert (w.severity, w.code, w.name) == ("warning", "W0001", "ignored")


def test_diagnostic_codes() -> None:
    codes = tirx.diagnostic_codes()
    assert codes["E0101"][0] == "unknown-name"
    assert codes["E0001"][0] == "syntax"
    assert all(c[0] in "EW" and len(c) == 5 for c in codes)
    doc = (REPO / "docs" / "diagnostics.md").read_text()
    for code, (name, _) in codes.items():
        assert f"| {code} | {name} |" in doc
