#!/usr/bin/env python3
"""Dump the reference T.ptx instruction table (markdown) for selected families.

Usage: python tests/reference/ptx_table_dump.py [FAMILY ...]
(default: every family that appears in expected/PTX_ENTRIES.txt).

For each table entry: op name (``tirx.ptx.<entry>``, ``*`` when a corpus
function calls it), the dotted PTX syntax (``[.slot]`` = optional slot), the
modifier slots in print order (``?`` = optional, printed as "" when omitted)
with their allowed tokens, and the operand list in call-argument order.  Every
entry of a family prints as ``T.ptx.<family>(...)``.  Operand notation::

    name:rw:kind[:space=S][:dtype=D][:lanes=N|fn][:literal=L][:choices=a|b]
        [:bracket=B][:pipe=P][:sinkable][:addr_off]

rw: r (input), w (written destination), rw (read-write).  kind: reg, addr
(memory operand), ptr, imm (compile-time immediate; ``literal`` ones take no
call argument).  ``lanes`` > 1 means that many consecutive call arguments;
``fn:<name>`` is a function of the modifier map, listed at the end.
"""

import inspect
import os
import sys

try:
    from tvm.backend.cuda.ptx import table as _table
    from tvm.backend.cuda.ptx.table import TABLE, escape_token
except ImportError as err:  # pragma: no cover
    sys.stderr.write(f"cannot import the reference: {err}\n")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))


def _fn(value, used):
    if callable(value):
        used.add(value)
        clo = _closure(value)
        tag = ",".join(f"{k}={v}" for k, v in clo)
        return "fn:" + value.__name__ + (f"[{tag}]" if tag else "")
    return str(value)


def _closure(fn):
    code = getattr(fn, "__code__", None)
    if code is None or not fn.__closure__:
        return ()
    vals = []
    for name, cell in zip(code.co_freevars, fn.__closure__):
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value):
            value = getattr(value, "__name__", repr(value))
        vals.append((name, value))
    return tuple(vals)


def opdesc(o, used):
    parts = [o.name, o.rw, o.kind]
    if o.space:
        parts.append("space=" + o.space)
    if o.dtype is not None:
        parts.append("dtype=" + _fn(o.dtype, used))
    if o.dtypes is not None:
        parts.append("dtypes=" + (_fn(o.dtypes, used) if callable(o.dtypes) else "|".join(o.dtypes)))
    if o.lanes != 1:
        parts.append("lanes=" + _fn(o.lanes, used))
    if o.literal is not None:
        parts.append("literal=" + o.literal)
    if o.choices:
        parts.append("choices=" + "|".join(o.choices))
    if o.bracket:
        parts.append("bracket=" + o.bracket)
    if o.pipe:
        parts.append("pipe=" + o.pipe)
    if o.sinkable:
        parts.append("sinkable" if o.sinkable is True else "sinkable=" + _fn(o.sinkable, used))
    if o.allow_imm_offset:
        parts.append("addr_off")
    return ":".join(parts)


def _corpus_entries():
    """Op names the corpus calls (expected/PTX_ENTRIES.txt), or an empty set."""
    path = os.path.join(HERE, "expected", "PTX_ENTRIES.txt")
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as fh:
        return {line.split("\t")[1].strip() for line in fh if "\t" in line}


def _syntax(entry):
    parts = [entry.ptx_name]
    for slot in entry.slots:
        parts.append(f"[.{slot.name}]" if slot.optional else f".{slot.name}")
    return "".join(parts)


def _entry_lines(entry, used_ops, used_fns):
    mark = "*" if entry.op_name in used_ops else " "
    check = f"   check={entry.check.__name__}" if entry.check else ""
    lines = [f"{mark}{entry.op_name}   {_syntax(entry)}{check}"]
    for slot in entry.slots:
        lines.append(f"   slot {slot.name}{'?' if slot.optional else ''}: {' '.join(slot.choices)}")
    ops = [opdesc(o, used_fns) for o in entry.operands]
    lines.append(f"   operands({len(ops)}): " + (", ".join(ops) if ops else "-"))
    return lines


def _family_section(fam, used_ops, used_fns):
    entries = [e for e in TABLE.values() if e.family == fam]
    plural = "entry" if len(entries) == 1 else "entries"
    out = [f"#### `{fam}` — printed `T.ptx.{escape_token(fam)}(...)`, {len(entries)} {plural}", "", "```"]
    for entry in entries:
        out.extend(_entry_lines(entry, used_ops, used_fns))
    out.extend(["```", ""])
    return out


def _function_sources(used_fns):
    out = ["#### Modifier-dependent functions referenced above (reference source)", "", "```python"]
    seen = set()
    extra = []
    for fn in sorted(used_fns, key=lambda f: (f.__name__, repr(_closure(f)))):
        try:
            src = inspect.getsource(fn).rstrip()
        except (OSError, TypeError):
            src = f"# {fn.__name__}: source unavailable"
        src = inspect.cleandoc(src) if src.startswith(" ") else src
        clo = _closure(fn)
        if (src, repr(clo)) in seen:
            continue
        seen.add((src, repr(clo)))
        if clo:
            out.append("# closure: " + ", ".join(f"{k}={v!r}" for k, v in clo))
        out.append(src)
        if "_mma_regs" in src:
            extra = ["_mma_shape", "_mma_threads", "_mma_regs"]
    for name in extra:
        fn = getattr(_table, name, None)
        if fn is not None:
            out.append(inspect.getsource(fn).rstrip())
    out.append("```")
    return out


def main(argv):
    used_ops = _corpus_entries()
    fams = argv[1:] or sorted({e.family for e in TABLE.values() if e.op_name in used_ops})
    used_fns = set()
    out = []
    for fam in fams:
        out.extend(_family_section(fam, used_ops, used_fns))
    if used_fns:
        out.extend(_function_sources(used_fns))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
