#!/usr/bin/env python3
"""Differential vectors for tirx's layout library, computed by the reference.

The reference is apache-tvm 0.27 (``tvm.tirx.layout``). This script draws
random layouts, shapes, regions and swizzles with a fixed seed, asks the
reference for concrete apply, canonical forms (with and without the CUDA
target), grouping, slicing, tiling, direct sums, sizes and spans, storage,
pack/unpack and the TMEM datapath layouts, and writes them as C string
literals that tests/unit/layout_ref.c replays against src/layout.

Run it from the repository root with the reference's interpreter:

    python tests/layout_ref/gen.py > tests/layout_ref/vectors.h
    python tests/layout_ref/gen.py --views > tests/layout_ref/views.h

With --views it draws random buffers (memory, thread-distributed, swizzled
and TMEM layouts, element offsets, TMEM addresses) and random views of them
(sub, tile, permute, reshape, view(dtype), rearrange, local), builds each view
with the reference's own Buffer methods, and records the child's shape,
layout, elem_offset and allocated_addr; tests/unit/layout_views_ref.c parses
the same view in TIRx script and compares.

Layouts are written in the notation of reference/layout_passes.md, which the
C test reads with tests/unit/layout_spec.h:  S[(8,4):(4@laneid,1)] + R[2:1@warpid]
+ 3@m, and Cmp(p,sw,at; tile) for a ComposeLayout.

Where tirx deliberately differs from the reference (the [QUIRK] decisions in
the report and tests/unit/layout_canon.c / layout_algebra.c), the generator
stays out of the way: it does not draw a wgid+wid_in_wg layout without lanes
for the CUDA canonical form (the reference fuses wgid onto wgid), never puts
two thread-axis offsets in one layout (the reference keeps only one of them
when they fuse onto the same axis), and packs/unpacks only layouts on m
without offsets (the reference scales thread strides and leaves offsets).
Each record is one line: a kind and fields separated by " | ".
"""
import itertools
import random
import sys
import warnings

import tvm
from tvm.tirx.layout import ComposeLayout, Iter, TileLayout, tmem_datapath_layout

warnings.filterwarnings("ignore")
rng = random.Random(20260822)

# Thread-axis families whose scopes form one chain.
FAMILIES = [
    ["laneid"],
    ["laneid", "warpid"],
    ["laneid", "wid_in_wg"],
    ["laneid", "wid_in_wg", "wgid"],
    ["tid_in_wg", "wgid"],
    ["tx"],
    ["warpid"],
]
MEMORY = ["m", "m", "m", "TLane", "TCol"]


# ---------------------------------------------------------------- notation
def axis_name(a):
    return a if isinstance(a, str) else a.name


def item(value, axis):
    axis = axis_name(axis)
    return f"{int(value)}" if axis == "m" else f"{int(value)}@{axis}"


def iters_spec(tag, iters):
    ext = ",".join(str(int(i.extent)) for i in iters)
    st = ",".join(item(i.stride, i.axis) for i in iters)
    return f"{tag}[({ext}):({st})]"


def spec(layout):
    if isinstance(layout, ComposeLayout):
        inner = "" if layout.swizzle_inner else ",inner=F"
        return (f"Cmp({layout.per_element},{layout.swizzle_len},{layout.atom_len};"
                f"{spec(layout.tile_layout)}{inner})")
    parts = []
    if len(layout.shard):
        parts.append(iters_spec("S", layout.shard))
    if len(layout.replica):
        parts.append(iters_spec("R", layout.replica))
    for axis, value in layout.offset.items():
        parts.append(item(value, axis))
    return " + ".join(parts) if parts else "S[()]"


def tup(values):
    return ",".join(str(int(v)) for v in values)


# ---------------------------------------------------------------- random inputs
def rand_tile(axes, n_max=4, extras=True, offsets=True, thread_offset_axes=()):
    n = rng.randint(1, n_max)
    shard, inner = [], 1
    for _ in range(n):
        e = rng.randint(1, 4)
        s = inner if rng.random() < 0.5 else rng.randint(0, 8)
        shard.insert(0, Iter(e, s, rng.choice(axes)))
        inner *= e
    replica = []
    if extras and rng.random() < 0.4:
        replica.append(Iter(rng.randint(1, 3), rng.randint(0, 16), rng.choice(axes)))
    offset = {}
    if offsets and rng.random() < 0.5:
        offset["m"] = rng.randint(0, 40)
    if thread_offset_axes and rng.random() < 0.4:  # at most one thread-axis offset
        offset[rng.choice(thread_offset_axes)] = rng.randint(1, 5)
    return TileLayout.from_iters(shard, replica, offset)


def rand_layout():
    fam = rng.choice(FAMILIES) if rng.random() < 0.6 else []
    axes = MEMORY + fam * 2
    return rand_tile(axes, thread_offset_axes=fam), fam


def rand_shape(layout):
    """A shape with the layout's element count, cutting its extents into runs."""
    tile = layout.tile_layout if isinstance(layout, ComposeLayout) else layout
    shape, run = [], 1
    for k, it in enumerate(tile.shard):
        run *= int(it.extent)
        if k == len(tile.shard) - 1 or (len(shape) < 3 and rng.random() < 0.5):
            shape.append(run)
            run = 1
    return shape or [1]


def size_of(layout):
    tile = layout.tile_layout if isinstance(layout, ComposeLayout) else layout
    n = 1
    for it in tile.shard:
        n *= int(it.extent)
    return n


def indices(shape, limit=6):
    total = 1
    for s in shape:
        total *= s
    picks = range(total) if total <= limit else rng.sample(range(total), limit)
    for pos in picks:
        idx = []
        for s in reversed(shape):
            idx.insert(0, pos % s)
            pos //= s
        yield idx


# ---------------------------------------------------------------- evaluating results
OPS = {
    "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
    "FloorDiv": lambda a, b: a // b, "FloorMod": lambda a, b: a % b,
    "Min": min, "Max": max, "LShift": lambda a, b: a << b, "RShift": lambda a, b: a >> b,
    "BitwiseXor": lambda a, b: a ^ b, "BitwiseAnd": lambda a, b: a & b,
    "BitwiseOr": lambda a, b: a | b,
}


def evaluate(e, env=None):
    env = env or {}
    kind = type(e).__name__
    if kind == "IntImm" or isinstance(e, int):
        return int(e)
    if kind == "Var":
        return env[e.name]
    if kind == "Let":
        return evaluate(e.body, {**env, e.var.name: evaluate(e.value, env)})
    if kind == "Cast":
        return evaluate(e.value, env)
    if kind in OPS:
        return OPS[kind](evaluate(e.a, env), evaluate(e.b, env))
    raise ValueError(f"cannot evaluate {kind}: {e}")


def points(layout, shape, idx):
    """The reference's apply (replica ignored) plus every replica combination."""
    tile = layout.tile_layout if isinstance(layout, ComposeLayout) else layout
    base = {k: evaluate(v) for k, v in layout.apply(*idx, shape=shape).items()}
    axes = {axis_name(i.axis) for i in list(tile.shard) + list(tile.replica)}
    axes |= {axis_name(a) for a in tile.offset.keys()}
    for a in axes:
        base.setdefault(a, 0)
    if isinstance(layout, ComposeLayout):
        return [base]
    out = []
    for digits in itertools.product(*[range(int(r.extent)) for r in tile.replica]):
        p = dict(base)
        for d, r in zip(digits, tile.replica):
            p[axis_name(r.axis)] += d * int(r.stride)
        out.append(p)
    return out


def points_text(pts):
    return ";".join(",".join(f"{a}={v}" for a, v in sorted(p.items())) for p in pts)


def emit(*fields):
    line = " | ".join(str(f) for f in fields)
    print('    "' + line.replace("\\", "\\\\").replace('"', '\\"') + '",')


def attempt(fn):
    try:
        return fn()
    except Exception:  # the reference rejects: tirx must reject too
        return None


# ---------------------------------------------------------------- record kinds
def gen_apply(n):
    for _ in range(n):
        layout, _fam = rand_layout()
        shape = rand_shape(layout)
        for idx in indices(shape):
            emit("apply", spec(layout), tup(shape), tup(idx), points_text(points(layout, shape, idx)))


def gen_swizzle(n):
    for _ in range(n):
        at = rng.randint(1, 3)
        tile = rand_tile(["m"], extras=False)
        layout = ComposeLayout(rng.randint(0, 2), rng.randint(1, at), at, tile, rng.random() < 0.8)
        shape = rand_shape(layout)
        for idx in indices(shape, 4):
            emit("apply", spec(layout), tup(shape), tup(idx), points_text(points(layout, shape, idx)))


def wgid_fuses_onto_itself(layout):
    """[QUIRK] for (warp, cta) the reference fuses wgid onto wgid; tirx onto warpid."""
    axes = {axis_name(i.axis) for i in list(layout.shard) + list(layout.replica)}
    axes |= {axis_name(a) for a in layout.offset.keys()}
    return "wgid" in axes and not axes & {"laneid", "tid_in_wg", "tx"}


def floors_a_stride(layout, k):
    """[QUIRK] the reference's pack floors strides k does not divide; tirx rejects."""
    return any(int(i.extent) > 1 and int(i.stride) % k for i in list(layout.shard)[:-1])


def gen_canon(n):
    for _ in range(n):
        layout, fam = rand_layout()
        res = attempt(layout.canonicalize)
        emit("canon", "NONE", spec(layout), spec(res) if res else "ERROR")
        if res is None or not wgid_fuses_onto_itself(res):
            with tvm.target.Target("cuda"):
                res = attempt(layout.canonicalize)
            emit("canon", "CUDA", spec(layout), spec(res) if res else "ERROR")


def gen_group(n):
    for _ in range(n):
        layout, _ = rand_layout()
        shape = rand_shape(layout)
        if rng.random() < 0.3:  # a reshuffled shape, often ungroupable
            shape = list(reversed(shape))
        res = attempt(lambda: layout.group(shape))
        if res is None:
            emit("group", spec(layout), tup(shape), "ERROR", "")
        else:
            emit("group", spec(layout), tup(shape), spec(res[0]), tup(res[1]))


def gen_slice(n):
    for _ in range(n):
        layout = rand_tile(MEMORY + ["laneid"], thread_offset_axes=())
        shape = rand_shape(layout)
        begin = [rng.randrange(s) for s in shape]
        ext = [rng.randint(1, s - b) for s, b in zip(shape, begin)]
        res = attempt(lambda: layout.slice(shape, [(b, b + e) for b, e in zip(begin, ext)]))
        emit("slice", spec(layout), tup(shape), tup(begin), tup(ext), spec(res) if res else "ERROR")


def gen_tile(n):
    for _ in range(n):
        inner = rand_tile(["m", "m", "laneid"], n_max=3, extras=rng.random() < 0.3, offsets=False)
        outer = rand_tile(["m", "m", "warpid"], n_max=3, extras=False, offsets=False)
        ishape, oshape = rand_shape(inner), rand_shape(outer)
        if len(ishape) != len(oshape):
            ishape, oshape = [size_of(inner)], [size_of(outer)]
        res = attempt(lambda: inner.tile(outer, oshape, ishape))
        emit("tile", spec(inner), spec(outer), tup(oshape), tup(ishape), spec(res) if res else "ERROR")
        right = rand_tile(["m", "TCol"], n_max=2, extras=False, offsets=True)
        rshape = rand_shape(right)
        if len(rshape) == len(oshape):
            res = attempt(lambda: right.direct_sum(outer, oshape, rshape))
            emit("dsum", spec(right), spec(outer), tup(oshape), tup(rshape),
                 spec(res) if res else "ERROR")


def gen_span(n):
    for _ in range(n):
        layout, fam = rand_layout()
        axes = ["*"] + sorted({axis_name(i.axis) for i in layout.shard})
        for a in axes:
            name = None if a == "*" else a
            size = layout.size(name) if name else layout.size()
            emit("span", spec(layout), a, int(size), evaluate(layout.span(name)))
        emit("storage", spec(layout), spec(layout.storage()))


def gen_pack(n):
    for _ in range(n):
        layout = rand_tile(["m"], extras=False, offsets=False)
        k = rng.choice([2, 3, 4])
        wide = layout.unpack(k)
        emit("unpack", spec(layout), k, spec(wide))
        for packable in (layout, wide):  # a random layout rarely packs; its unpacked form does
            if floors_a_stride(packable, k):
                continue
            res = attempt(lambda: packable.pack(k))
            emit("pack", spec(packable), k, spec(res) if res else "ERROR")


def gen_tmem():
    for kind in "ABCDEFGX":
        for rows, cols, sub in [(128, 64, 0), (64, 64, 0), (64, 64, 1), (32, 64, 0), (64, 30, 0),
                                (64, 6, 1), (32, 8, 0), (128, 16, 1)]:
            res = attempt(lambda: tmem_datapath_layout(kind, rows, cols, sub))
            emit("tmem", kind, rows, cols, sub, spec(res) if res else "ERROR")


# ---------------------------------------------------------------- views (--views)
vr = random.Random(20261202)
VIEW_DIMS = [1, 2, 3, 4, 6, 8, 16]


def view_parent():
    """A random buffer: (dtype, scope, shape, layout, elem_offset, addr, m-only dims).

    Each dim is made of 1-2 iters. The quirks stay out: a dim whose iters are
    not all on the storage axis (m, or TCol for TMEM) is never offset by a
    view (the reference adds such offsets to elem_offset or rejects them)."""
    kind = vr.choice(["mem", "mem", "thr", "swz", "tmem"])
    axes = {"mem": ["m"], "swz": ["m"], "thr": ["m", "m", "laneid", "warpid"],
            "tmem": ["TLane", "TCol", "TCol"]}[kind]
    storage = "TCol" if kind == "tmem" else "m"
    rank = vr.randint(1, 3)
    shape, shard, plain = [], [], []
    for _ in range(rank):
        e = vr.choice(VIEW_DIMS)
        parts = [e // 2, 2] if e % 2 == 0 and e > 2 and vr.random() < 0.4 else [e]
        dim_axes = [vr.choice(axes) for _ in parts]
        for ext, ax in zip(parts, dim_axes):
            stride = vr.randint(1, 16) if vr.random() < 0.7 else vr.randint(0, 2)
            shard.append(Iter(ext, stride, ax))
        shape.append(e)
        plain.append(all(a == storage for a in dim_axes))
    replica = [Iter(2, vr.randint(1, 5), vr.choice(axes))] if kind == "thr" and vr.random() < 0.3 else []
    offset = {"m": vr.randint(1, 9)} if kind in ("mem", "thr") and vr.random() < 0.3 else {}
    layout = TileLayout.from_iters(shard, replica, offset)
    if kind == "swz":
        at = vr.randint(2, 3)
        layout = ComposeLayout(vr.randint(0, 1), vr.randint(1, at), at, layout, True)
    dtype = vr.choice(["float32", "float16"])
    eo = 0 if kind == "tmem" else vr.choice([0, 0, 8, 24, 64])
    addr = 32 * vr.randint(0, 3) if kind == "tmem" else None
    scope = {"tmem": "tmem", "thr": "local"}.get(kind, "shared")
    return dtype, scope, shape, layout, eo, addr, plain


def view_pick(extent, plain):
    k = vr.randint(0, 3) if plain else 0
    if k == 0:
        return ":"
    if k == 1:
        return str(vr.randrange(extent))
    if k == 2:
        a = vr.randrange(extent)
        return f"{a}:{vr.randint(a + 1, extent)}"
    step = 2 if extent % 2 == 0 else extent
    return f"{vr.randrange(step)}::{step}"


def view_dtype_quirks(scope, layout):
    """(pack ok, unpack ok): [QUIRK] the reference's pack/unpack scale thread
    strides, leave offsets and replica strides unscaled, and pack floors the
    strides it does not divide; tirx keeps every element's owner and address,
    or rejects. Only layouts on m without offsets or replicas are drawn."""
    tile = layout.tile_layout if isinstance(layout, ComposeLayout) else layout
    plain = scope != "tmem" and not len(tile.offset) and not len(tile.replica) and all(
        axis_name(i.axis) == "m" for i in tile.shard)
    return plain and not floors_a_stride(tile, 2), plain


def view_ops(dtype, scope, shape, plain, memory_only):
    rank = len(shape)
    n = vr.randint(1, rank)
    yield "sub[" + ", ".join(view_pick(shape[d], plain[d]) for d in range(n)) + "]"
    perm = list(range(rank))
    vr.shuffle(perm)
    yield "permute(" + ", ".join(map(str, perm)) + ")"
    total = 1
    for e in shape:
        total *= e
    yield f"view({total})"
    if shape[-1] % 2 == 0:
        yield "view(" + ", ".join(map(str, shape[:-1] + [shape[-1] // 2, 2])) + ")"
    d = vr.randrange(rank)
    if shape[d] % 2 == 0 and shape[d] > 2 and plain[d]:
        first = 2 if vr.random() < 0.5 else -1
        extents = [2, shape[d] // 2] if first == 2 else [shape[d] // 2, 2]
        k = vr.randint(0, 1)
        picks = [":", ":"]
        picks[k] = str(vr.randrange(extents[k]))
        yield f"tile({d}, ({first}, {-1 if first == 2 else 2}))[{picks[0]}, {picks[1]}]"
    if memory_only[0]:  # a wider view packs: see view_dtype_quirks
        yield 'view("float64")' if dtype == "float32" else 'view("float32")'
    if memory_only[1]:
        yield 'view("float16")' if dtype == "float32" else 'view("int8")'
    if rank >= 2 and shape[0] % 2 == 0:
        yield f'rearrange("(a b) c{" d" if rank == 3 else ""} -> c b{" d" if rank == 3 else ""} a", a=2)'
    if scope == "local":
        yield "local()"


def child_text(v):
    addr = v.allocated_addr
    a = str(int(addr[0])) if addr is not None and len(addr) else "-"
    layout = spec(v.layout) if v.layout is not None else "None"
    return f"{tup(v.shape)} | {layout} | {int(v.elem_offset)} | {a}"


def gen_views(n):
    from tvm.script.ir_builder import IRBuilder
    from tvm.script.ir_builder import tirx as Tb

    for _ in range(n):
        dtype, scope, shape, layout, eo, addr, plain = view_parent()
        parent = f"{dtype} | {scope} | {tup(shape)} | {spec(layout)} | {eo} | {addr if addr is not None else '-'}"
        for op in view_ops(dtype, scope, shape, plain, view_dtype_quirks(scope, layout)):
            try:
                with IRBuilder():
                    with Tb.prim_func():
                        if scope == "tmem":
                            P = Tb.decl_buffer(shape, dtype, scope="tmem", allocated_addr=addr,
                                               layout=layout)
                        else:
                            pool = Tb.alloc_buffer((1 << 20,), "uint8", scope=scope)
                            P = Tb.decl_buffer(shape, dtype, data=pool.data, elem_offset=eo,
                                               scope=scope, layout=layout)
                        result = child_text(eval("P." + op, {"P": P}))  # pylint: disable=eval-used
            except Exception:  # the reference rejects: tirx must reject too
                result = "ERROR"
            emit("view", parent, op, result)


def main_views():
    print("/* Generated by tests/layout_ref/gen.py --views from apache-tvm "
          f"{tvm.__version__} (tvm.tirx Buffer views); do not edit. */")
    print("static const char *const layout_view_vectors[] = {")
    gen_views(300)
    print("};")


def main():
    if "--views" in sys.argv[1:]:
        return main_views()
    print("/* Generated by tests/layout_ref/gen.py from apache-tvm "
          f"{tvm.__version__} (tvm.tirx.layout); do not edit. */")
    print("static const char *const layout_ref_vectors[] = {")
    gen_apply(250)
    gen_swizzle(80)
    gen_canon(250)
    gen_group(120)
    gen_slice(200)
    gen_tile(120)
    gen_span(80)
    gen_pack(60)
    gen_tmem()
    print("};")


if __name__ == "__main__":
    sys.exit(main())
