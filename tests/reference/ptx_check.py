#!/usr/bin/env python3
"""Compare tirx's PTX instruction table (src/ir/ptx.def) with the reference's.

The reference (apache-tvm, `tvm/backend/cuda/ptx/table.py`) prints a T.ptx call
with one string per modifier slot, in the slot order of the table entry the
call resolved to. tirx prints the same strings only if its entries have the same
families, slot names, slot order and slot choices, and if it resolves a
spelling to the same entry. This script checks both, entry by entry:

  1. the layout: for every entry key both tables have, the printed family and
     the slots (name, optional or not, the set of choices);
  2. resolution: random valid modifier combinations of each shared entry,
     spelled in slot order and shuffled, raw and escaped, are fed with the
     entry's own operand types to tirx's resolver (`unit_ptx --resolve`); each
     must come back as the same entry with the same slot strings. The printed
     form of each (family, one string per slot) must come back as the same
     entry too. Without the operand types (only their number) the slot strings
     must still agree, or the spelling be reported ambiguous (a shape that only
     operand types tell apart, e.g. tcgen05.mma's ss and ts forms).

The reference's table module is pure data and is loaded on its own (no TVM
runtime). Usage:

    python3 tests/reference/ptx_check.py BUILD/tests/unit_ptx [--table PATH]
        [--samples N] [--seed S]

Exit status 0 when everything shared agrees, 1 otherwise, 77 when the
reference table cannot be found (the check is then skipped).
"""

import argparse
import importlib.util
import keyword
import os
import random
import subprocess
import sys


def find_reference_table(explicit):
    if explicit:
        return explicit
    spec = importlib.util.find_spec("tvm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(spec.submodule_search_locations[0], "backend", "cuda", "ptx", "table.py")
    return path if os.path.exists(path) else None


def load_table(path):
    spec = importlib.util.spec_from_file_location("reference_ptx_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_dump(binary):
    """Our table: {key: {"printed": str, "slots": [(name, optional, choices)]}}."""
    out = subprocess.run([binary, "--dump"], check=True, capture_output=True, text=True).stdout
    table, current = {}, None
    for line in out.splitlines():
        words = line.split()
        if words[0] == "entry":
            current = {"family": words[2], "printed": words[3], "slots": []}
            table[words[1]] = current
        elif words[0] == "slot":
            current["slots"].append((words[1], words[2] == "opt", tuple(words[3:])))
    return table


def escape(token):
    token = token.replace("::", "__").replace(":", "__colon__")
    return token + "_" if keyword.iskeyword(token) else token


def compare_layouts(ref, ours):
    problems = []
    for key in sorted(set(ref) & set(ours)):
        entry, mine = ref[key], ours[key]
        if escape(entry.family) != mine["printed"]:
            problems.append(f"{key}: family prints {mine['printed']}, reference {escape(entry.family)}")
        theirs = [(s.name, s.optional, tuple(s.choices)) for s in entry.slots]
        if [(n, o) for n, o, _ in theirs] != [(n, o) for n, o, _ in mine["slots"]]:
            problems.append(f"{key}: slots {[(n, o) for n, o, _ in mine['slots']]}, "
                            f"reference {[(n, o) for n, o, _ in theirs]}")
            continue
        for (name, _, a), (_, _, b) in zip(theirs, mine["slots"]):
            if set(a) != set(b):
                problems.append(f"{key}: slot {name} choices differ: only reference "
                                f"{sorted(set(a) - set(b))}, only ours {sorted(set(b) - set(a))}")
    return problems


def greedy_fill(entry, tokens):
    """The reference's own narrowing: each token takes the first open slot listing it."""
    filled = [None] * len(entry.slots)
    for token in tokens:
        for i, slot in enumerate(entry.slots):
            if filled[i] is None and token in slot.choices:
                filled[i] = token
                break
        else:
            return None
    return tuple(t or "" for t in filled)


def legal(tab, entry, combo):
    if any(not t and not s.optional for t, s in zip(combo, entry.slots)):
        return False
    return entry.check is None or not entry.check(tab.mods(entry, combo))


def random_combos(tab, entry, rng, count):
    combos, tries = [], 0
    while len(combos) < count and tries < count * 200:
        tries += 1
        combo = tuple(
            ("" if s.optional and rng.random() < 0.6 else rng.choice(s.choices)) for s in entry.slots
        )
        if legal(tab, entry, combo) and combo not in combos:
            combos.append(combo)
    return combos


def carrier(tab, slot, mod_map):
    """The argument a well-typed caller passes for one lane of an operand."""
    if slot.kind in ("addr", "ptr"):
        return "uint32" if tab.operand_space(slot, mod_map) == "tmem" else "handle"
    if slot.kind == "imm":
        return "int32"
    if tab.operand_type(slot, mod_map) == "pred":
        return "pred" if slot.rw == "r" else "uint32"
    dtype = tab.operand_dtypes(slot, mod_map)[0]
    return {"uint128": "uint64x2", "int128": "int64x2"}.get(dtype, dtype)


def probe_lines(tab, ref, ours, samples, rng):
    """(key, line, expected answer, untyped) for the resolver probe."""
    for key in sorted(set(ref) & set(ours)):
        entry = ref[key]
        for combo in random_combos(tab, entry, rng, samples):
            mod_map = tab.mods(entry, combo)
            args = [carrier(tab, slot, mod_map)
                    for slot, _, lanes in tab.operand_layout(entry, mod_map) for _ in range(lanes)]
            want = f"ok {key} " + "|".join(combo)
            printed = "= " + escape(entry.family) + " " + "|".join(combo)
            yield key, printed + " ; " + " ".join(args), want, False
            tokens = [t for t in combo if t]
            for order in (tokens, rng.sample(tokens, len(tokens))):
                filled = greedy_fill(entry, order)
                if filled is None or not legal(tab, entry, filled):
                    continue
                spelled = [escape(t) if rng.random() < 0.5 else t for t in order]
                line = " ".join([escape(entry.family)] + spelled)
                want = f"ok {key} " + "|".join(filled)
                yield key, line + " ; " + " ".join(args), want, False
                yield key, line + " ; " + " ".join("?" for _ in args), want, True


def agrees(want, got, untyped):
    """A typed probe must name the entry; an untyped one only its slot strings."""
    if not untyped:
        return got == want
    if got.startswith("err ") and "ambiguous" in got:
        return True
    return got.split(" ")[0] == "ok" and got.split(" ")[2:] == want.split(" ")[2:]


def run_probes(binary, probes):
    probes = list(probes)
    text = "".join(line + "\n" for _, line, _, _ in probes)
    out = subprocess.run([binary, "--resolve"], input=text, check=True, capture_output=True,
                         text=True).stdout.splitlines()
    failures = [(key, line, want, got) for (key, line, want, untyped), got in zip(probes, out)
                if not agrees(want, got, untyped)]
    ambiguous = sum(1 for (_, _, _, untyped), got in zip(probes, out)
                    if untyped and got.startswith("err ") and "ambiguous" in got)
    return len(probes), failures, ambiguous


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("unit_ptx", help="the built tests/unit_ptx binary")
    parser.add_argument("--table", help="the reference's ptx/table.py (default: from tvm)")
    parser.add_argument("--samples", type=int, default=24, help="combinations per entry")
    parser.add_argument("--seed", type=int, default=1)
    opts = parser.parse_args()

    path = find_reference_table(opts.table)
    if not path:
        print("ptx_check: skipped: the reference's ptx/table.py was not found (pip install apache-tvm)")
        return 77
    tab = load_table(path)
    ref, ours = tab.TABLE, read_dump(opts.unit_ptx)
    shared = set(ref) & set(ours)
    print(f"ptx_check: reference {len(ref)} entries, ours {len(ours)}, shared {len(shared)}")
    only_ours = sorted(set(ours) - set(ref))
    if only_ours:
        print("  only ours:", " ".join(only_ours))
    missing = sorted(set(ref) - set(ours))
    print(f"  not in ours ({len(missing)}):", " ".join(missing))

    problems = compare_layouts(ref, ours)
    for p in problems:
        print("LAYOUT", p)
    count, failures, ambiguous = run_probes(
        opts.unit_ptx, probe_lines(tab, ref, ours, opts.samples, random.Random(opts.seed)))
    for key, line, want, got in failures[:60]:
        print(f"RESOLVE {key}: {line}\n    want {want}\n    got  {got}")
    print(f"ptx_check: {len(problems)} layout differences; {count - len(failures)}/{count} "
          f"spellings resolve as in the reference ({ambiguous} without operand types are "
          f"reported ambiguous)")
    return 0 if not problems and not failures and not only_ours else 1


if __name__ == "__main__":
    sys.exit(main())
