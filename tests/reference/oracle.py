#!/usr/bin/env python3
"""Differential oracle: print every corpus function with the reference TIRx.

Usage:  python tests/reference/oracle.py OUTDIR [NAME ...]

For each entry of ``funcs.CORPUS`` (name -> tirx Function or IRModule) this
writes ``OUTDIR/<name>.tirx`` containing exactly ``obj.script()`` (no newline
is added), then re-parses the text with the reference parser and checks that
``from_source(text).script() == text``.  Names whose text does not survive
that round trip are listed, one per line, in ``OUTDIR/NONIDEMPOTENT.txt``
(always written, possibly empty); the reason for each is written to
``OUTDIR/NONIDEMPOTENT_REASONS.txt`` as ``name<TAB>reason``.
``OUTDIR/PTX_ENTRIES.txt`` lists, for every T.ptx call in the corpus, the
table entry (op name) it resolved to: ``name<TAB>tirx.ptx.<entry>``.

Exit status: 0 on success, 1 if a corpus entry fails to print, 77 (skip) if
the reference package cannot be imported.

The reference is the PyPI package ``apache-tvm-tirx`` (see requirements.txt);
it installs the Python package ``tvm_tirx`` (older/dev builds call it
``tvm``; both are accepted).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _import_reference():
    try:
        import tvm_tirx as tvm  # noqa: F401  (apache-tvm-tirx 0.1.0a3+)
        from tvm_tirx.script import ir as I  # noqa: E741
        from tvm_tirx.script import tirx as T
    except ImportError as first:
        try:
            import tvm  # type: ignore  # noqa: F401
            from tvm.script import ir as I  # type: ignore  # noqa: E741
            from tvm.script import tirx as T  # type: ignore
        except ImportError:
            sys.stderr.write(
                "oracle.py: cannot import the reference compiler "
                f"(tvm_tirx / tvm): {first}\n"
                "install it with: pip install -r tests/reference/requirements.txt\n"
            )
            sys.exit(77)
    return tvm, T, I


def _ptx_ops(obj, tvm):
    """Names of tirx.ptx.* ops called anywhere in obj (sorted, unique)."""
    found = set()
    text_funcs = []
    if isinstance(obj, tvm.ir.IRModule):
        text_funcs = list(obj.functions.values())
    else:
        text_funcs = [obj]
    import tvm_ffi

    def visit(node):
        if isinstance(node, tvm.ir.Call) and isinstance(node.op, tvm.ir.Op):
            name = node.op.name
            if name.startswith("tirx.ptx."):
                found.add(name)
        return node

    for f in text_funcs:
        try:
            tvm_ffi.structural_map(f, (tvm.ir.Call, visit), order="pre")
        except Exception:  # pragma: no cover - best effort bookkeeping
            pass
    return sorted(found)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: oracle.py OUTDIR [NAME ...]\n")
        return 2
    outdir = argv[1]
    only = set(argv[2:])
    tvm, T, I = _import_reference()
    sys.path.insert(0, HERE)
    import funcs  # noqa: E402  (needs the reference importable)

    os.makedirs(outdir, exist_ok=True)
    bad = []
    ptx_rows = []
    failures = 0
    for name, obj in funcs.CORPUS.items():
        if only and name not in only:
            continue
        try:
            text = obj.script()
        except Exception as err:  # printing must work for every entry
            sys.stderr.write(f"oracle.py: {name}: script() failed: {err}\n")
            failures += 1
            continue
        with open(os.path.join(outdir, name + ".tirx"), "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        reason = None
        try:
            again = tvm.script.from_source(text, extra_vars={"T": T, "I": I})
            text2 = again.script()
            if text2 != text:
                reason = "reprint differs"
        except SyntaxError as err:
            reason = f"reparse SyntaxError: {err.msg} (line {err.lineno})"
        except Exception as err:  # noqa: BLE001
            msg = str(err).strip().splitlines()
            reason = f"reparse {type(err).__name__}: {msg[-1] if msg else ''}"
        if reason is not None:
            bad.append((name, reason.replace("\t", " ").replace("\n", " ")))
        for op in _ptx_ops(obj, tvm):
            ptx_rows.append(f"{name}\t{op}")
    with open(os.path.join(outdir, "NONIDEMPOTENT.txt"), "w", encoding="utf-8") as fh:
        fh.write("".join(f"{n}\n" for n, _ in bad))
    with open(os.path.join(outdir, "NONIDEMPOTENT_REASONS.txt"), "w", encoding="utf-8") as fh:
        fh.write("".join(f"{n}\t{r}\n" for n, r in bad))
    with open(os.path.join(outdir, "PTX_ENTRIES.txt"), "w", encoding="utf-8") as fh:
        fh.write("".join(row + "\n" for row in ptx_rows))
    total = len(funcs.CORPUS) if not only else len(only)
    sys.stderr.write(
        f"oracle.py: wrote {total - failures} files to {outdir}; "
        f"{len(bad)} not idempotent; {failures} failed\n"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
