#!/usr/bin/env python3
"""Differential oracle: print every corpus function with the reference TIRx.

Usage:  python tests/reference/oracle.py OUTDIR [NAME ...]

The reference is PyPI ``apache-tvm==0.27.0.post1`` (pinned in requirements.txt).
For each entry of ``funcs.CORPUS`` (name -> PrimFunc or IRModule) this writes
``OUTDIR/<name>.tirx`` containing exactly ``obj.script()`` (no newline is
added; the reference prints none at the end), then checks in the reference
itself that ``tvm.script.from_source(text).script() == text``.  Both prints use
the portable TypeVar form for symbolic int64 shapes (``script.use_pep695`` off),
which is what the printer does by default on Python < 3.12.

Files written besides the ``.tirx`` texts (always, possibly empty):

``NONIDEMPOTENT.txt``
    names whose text does not survive that round trip, one per line;
``NONIDEMPOTENT_REASONS.txt``
    ``name<TAB>reason`` for each of them;
``NOT_WELL_FORMED.txt``
    names whose text only re-parses with ``check_well_formed=False`` (free
    variables, undeclared buffers); they round-trip exactly that way, so they
    are not listed as non-idempotent;
``PTX_ENTRIES.txt``
    ``name<TAB>tirx.ptx.<entry>`` for every PTX table entry a corpus entry
    calls (the printed text names only the family).

Exit status: 0 on success, 1 if a corpus entry fails to print, 2 on bad usage,
77 (skip) with the reason on stderr if the reference cannot be imported or is
not the pinned version.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PINNED_VERSION = "0.27.0.post1"
# The printer's PEP 695 mode defaults to "printing Python >= 3.12"; pin the portable
# TypeVar form so the output does not depend on the Python the venv was made with.
PRINT_CONFIG = {"script.use_pep695": False}


def _import_reference():
    try:
        import tvm  # noqa: F401
        import tvm.script  # noqa: F401
    except Exception as err:  # noqa: BLE001  (any import failure means: skip)
        sys.stderr.write(
            f"oracle.py: cannot import the reference compiler (tvm): {err}\n"
            "install it with: pip install -r tests/reference/requirements.txt\n"
        )
        sys.exit(77)
    version = getattr(tvm, "__version__", "unknown")
    if version != PINNED_VERSION:
        sys.stderr.write(
            f"oracle.py: the reference is apache-tvm {version}, not the pinned "
            f"{PINNED_VERSION}; install it with: "
            "pip install -r tests/reference/requirements.txt\n"
        )
        sys.exit(77)
    return tvm


def _functions(obj, tvm):
    if isinstance(obj, tvm.IRModule):
        return list(obj.functions.values())
    return [obj]


def _ptx_ops(obj, tvm):
    """Names of the tirx.ptx.* ops called anywhere in obj (sorted, unique)."""
    import tvm_ffi  # the reference's FFI package, installed with it

    found = set()

    def visit(node, visitor):
        if isinstance(node.op, tvm.ir.Op) and node.op.name.startswith("tirx.ptx."):
            found.add(node.op.name)
        visitor.default_visit(node)

    for func in _functions(obj, tvm):
        tvm_ffi.structural_visit(func.body, [(tvm.ir.Call, visit)])
    return sorted(found)


def _one_line(text):
    """The first line of a (possibly multi-line) diagnostic."""
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return (lines[0] if lines else "").replace("\t", " ")


def _reparse(tvm, text, check_well_formed):
    """Re-parse and re-print; returns (reprinted text, None) or (None, reason)."""
    try:
        again = tvm.script.from_source(text, check_well_formed=check_well_formed)
        return again.script(extra_config=PRINT_CONFIG), None
    except SyntaxError as err:
        return None, f"reparse SyntaxError: {err.msg} (line {err.lineno})"
    except Exception as err:  # noqa: BLE001
        return None, f"reparse {type(err).__name__}: {_one_line(err)}"


def _first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"reprint differs at line {i + 1}: {x.strip()!r} -> {y.strip()!r}"
    return f"reprint differs in length ({len(la)} vs {len(lb)} lines)"


def _check(tvm, text):
    """Returns (reason or None, needed_check_well_formed_off)."""
    text2, reason = _reparse(tvm, text, True)
    relaxed = False
    if reason is not None:
        text3, reason3 = _reparse(tvm, text, False)
        if reason3 is None:
            text2, reason, relaxed = text3, None, True
    if reason is None and text2 != text:
        reason = _first_difference(text, text2)
    return reason, relaxed


def _write_lines(outdir, name, lines):
    with open(os.path.join(outdir, name), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(line + "\n" for line in lines))


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: oracle.py OUTDIR [NAME ...]\n")
        return 2
    outdir = argv[1]
    only = set(argv[2:])
    tvm = _import_reference()
    sys.path.insert(0, HERE)
    import funcs  # noqa: E402  (needs the reference importable)

    os.makedirs(outdir, exist_ok=True)
    bad, not_well_formed, ptx_rows = [], [], []
    failures = written = 0
    for name, obj in funcs.CORPUS.items():
        if only and name not in only:
            continue
        try:
            text = obj.script(extra_config=PRINT_CONFIG)
        except Exception as err:  # noqa: BLE001  (printing must work for every entry)
            sys.stderr.write(f"oracle.py: {name}: script() failed: {_one_line(err)}\n")
            failures += 1
            continue
        with open(os.path.join(outdir, name + ".tirx"), "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        written += 1
        reason, relaxed = _check(tvm, text)
        if reason is not None:
            bad.append((name, reason))
        elif relaxed:
            not_well_formed.append(name)
        ptx_rows.extend(f"{name}\t{op}" for op in _ptx_ops(obj, tvm))
    _write_lines(outdir, "NONIDEMPOTENT.txt", [n for n, _ in bad])
    _write_lines(outdir, "NONIDEMPOTENT_REASONS.txt", [f"{n}\t{r}" for n, r in bad])
    _write_lines(outdir, "NOT_WELL_FORMED.txt", not_well_formed)
    _write_lines(outdir, "PTX_ENTRIES.txt", ptx_rows)
    sys.stderr.write(
        f"oracle.py: wrote {written} files to {outdir}; {len(bad)} not idempotent; "
        f"{len(not_well_formed)} need check_well_formed=False; {failures} failed\n"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
