# pylint: disable=invalid-name,missing-function-docstring,unused-variable,undefined-variable
# ruff: noqa: E501, F821, F841
"""Corpus of small TIRx functions written in the reference's Python TVMScript.

The reference is PyPI ``apache-tvm==0.27.0.post1`` (see requirements.txt); its
``tvm.tirx`` prints the dialect described in shared/reference/script_surface.md.
``oracle.py`` prints every entry of ``CORPUS`` into ``expected/<name>.tirx``.

``CORPUS`` (built at the bottom) maps each module-level PrimFunc / IRModule to
its Python name, in definition order; that name is the output file name.  A
module class is printed as ``class Module`` whatever its Python name.

Tile primitives are spelled ``T.cta.copy`` / ``T.tile.gemm_async`` /
``T.wg.copy_async`` ... (``T.tile`` is the ``Tx`` surface of the reference).

Name prefixes: p_ parameters/types, s_ scalars, l_ loops, c_ control flow,
d_ device entry/attrs/scope ids, a_ allocation/declaration, v_ views,
y_ layouts, e_ expressions, k_ T.cuda intrinsics, x_ T.ptx calls,
t_ tile primitives, g_ kernel skeletons, m_ IR modules.
"""

import enum
from collections import OrderedDict

import tvm
from tvm.script import ir as I  # noqa: E741
from tvm.script import tirx as T
from tvm.tirx.lang.pipeline import MBarrier, Pipeline, PipelineState, TCGen05Bar, TMABar
from tvm.tirx.lang.smem_desc import SmemDescriptor
from tvm.tirx.lang.tile_scheduler import (
    ClusterLaunchControlScheduler,
    ClusterPersistentScheduler2D,
    FlashAttentionLinearScheduler,
    FlashAttentionLPTScheduler,
    GroupMajor3D,
    RankAwareGroupMajorTileScheduler,
)
from tvm.backend.cuda.lang.clc import query_cancel_first_ctaid_x
from tvm.tirx.lang.warp_role import WarpgroupRole, WarpRole
from tvm.tirx.layout import (
    Axis,
    Iter,
    TCol,
    TileLayout,
    TLane,
    laneid,
    tcgen05_atom_layout,
    tmem_datapath_layout,
    warpid,
    wg_local_layout,
)


class _Event(enum.Enum):
    """A profiler event (T.cuda.timer_start takes its .value)."""

    MAIN_LOOP = 3


# ---------------------------------------------------------------------------
# p_: parameters, buffer types, dtypes, function headers
# ---------------------------------------------------------------------------

@T.prim_func
def p_buffer_param(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16,), "float32")):
    B[0] = T.Cast("float32", A[1, 2])


@T.prim_func
def p_match_buffer(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (8, 8), "float16")
    B = T.match_buffer(b, (64,), "float32", scope="global", align=128)
    B[0] = T.Cast("float32", A[0, 1])


@T.prim_func
def p_scalar_params(n: T.int32, x: T.float32, b: T.bool, u: T.uint64, A: T.Buffer((4,), "float32")):
    if b:
        A[0] = x + T.Cast("float32", n) + T.Cast("float32", u)


@T.prim_func
def p_handle_params(a: T.handle, p: T.handle("float16", "shared"), q: T.handle("float32"), r: T.handle(storage_scope="shared")):
    T.evaluate(0)


@T.prim_func
def p_symbolic_match(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n, 4), "float16")
    B[0, 0] = T.Cast("float16", A[0])


@T.prim_func
def p_symbolic_param(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n, 16), "float16")
    for i in range(n):
        A[i, 0] = T.float16(0)


@T.prim_func
def p_symbolic_int64(a: T.handle):
    m = T.int64()
    A = T.match_buffer(a, (m, 2), "float32")
    A[0, 0] = T.float32(1)


@T.prim_func
def p_strides_offset(a: T.handle):
    A = T.match_buffer(a, (4, 4), "float32", strides=(8, 1), elem_offset=2)
    A[0, 0] = T.float32(0)


@T.prim_func
def p_dtypes_int(A: T.Buffer((4,), "int8"), B: T.Buffer((4,), "int16"), C: T.Buffer((4,), "int32"), D: T.Buffer((4,), "int64")):
    C[0] = T.Cast("int32", A[0]) + T.Cast("int32", B[0]) + T.Cast("int32", D[0])


@T.prim_func
def p_dtypes_uint(E: T.Buffer((4,), "uint8"), F: T.Buffer((4,), "uint16"), G: T.Buffer((4,), "uint32"), H: T.Buffer((4,), "uint64")):
    G[0] = T.Cast("uint32", E[0]) + T.Cast("uint32", F[0]) + T.Cast("uint32", H[0])


@T.prim_func
def p_dtypes_float(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float64"), D: T.Buffer((4,), "bfloat16")):
    B[0] = T.Cast("float32", A[0]) + T.Cast("float32", C[0]) + T.Cast("float32", D[0])


@T.prim_func
def p_dtypes_fp8(A: T.Buffer((4,), "float8_e4m3fn"), B: T.Buffer((4,), "float8_e5m2"), C: T.Buffer((4,), "float8_e8m0fnu"), D: T.Buffer((8,), "float4_e2m1fn"), E: T.Buffer((4,), "float32")):
    E[0] = T.Cast("float32", A[0]) + T.Cast("float32", B[0]) + T.Cast("float32", C[0]) + T.Cast("float32", D[0])


@T.prim_func
def p_dtypes_vector(A: T.Buffer((4,), "float16x2"), B: T.Buffer((4,), "float32x4"), C: T.Buffer((4,), "int8x4"), D: T.Buffer((4,), "float8_e4m3fnx4")):
    B[0] = T.Broadcast(T.float32(1), 4)
    A[1] = A[0]
    C[1] = C[0]
    D[1] = D[0]


@T.prim_func
def p_bool_buffer(A: T.Buffer((8,), "bool"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        if A[i]:
            B[i] = 1


@T.prim_func
def p_return_int() -> T.int32:
    return 7


@T.prim_func
def p_return_float(x: T.float32) -> T.float32:
    return x * T.float32(2)


@T.prim_func
def p_func_attr(A: T.Buffer((4,), "int32")):
    T.func_attr({"tir.noalias": True, "my_attr": 3, "a_str": "s"})
    A[0] = 1


@T.prim_func(private=True)
def p_private(A: T.Buffer((4,), "int32")):
    A[0] = 1


@T.prim_func(persistent=True)
def p_persistent(A: T.Buffer((4,), "int32")):
    A[0] = 1


@T.prim_func
def p_zero_dim(A: T.Buffer((), "float32")):
    A[()] = T.float32(1)


@T.prim_func
def p_tensormap(tmap: T.TensorMap(), A: T.Buffer((4,), "uint64")):
    A[0] = T.reinterpret("uint64", T.address_of(tmap))


@T.prim_func
def p_buffer_layout_param(A: T.Buffer((8, 8), "float16", layout=T.TileLayout(T.S[(8, 8):(1, 8)])), B: T.Buffer((8,), "float16", layout=None)):
    B[0] = A[0, 1]


# ---------------------------------------------------------------------------
# s_: scalars: T.let bindings, mutable scalars, pointer binds
# ---------------------------------------------------------------------------

@T.prim_func
def s_mutable_scalar(A: T.Buffer((4,), "int32")):
    x: T.int32 = 0
    y: T.float16 = T.float16(1.0)
    z: T.int32
    x = x + 1
    z = x + 2
    y = y + T.float16(3.0)
    A[0] = x + z


@T.prim_func
def s_let_bind(A: T.Buffer((4,), "int32"), n: T.int32):
    a: T.let[T.int32] = n * 2
    b: T.let = a + 1
    A[0] = a + b


@T.prim_func
def s_bind_nodes(A: T.Buffer((4,), "int32"), n: T.int32):
    v = T.int32()
    T.Bind(n + 1, var=v)
    A[0] = v
    w = T.bind(n * 2)
    A[1] = w
    p = T.bind(A.data, T.handle("int32", "global"))
    T.evaluate(p)


@T.prim_func
def s_let_reuse(A: T.Buffer((4,), "float32"), x: T.float32):
    y: T.let[T.float32] = x * x
    z: T.let[T.float32] = y + x
    A[0] = z


@T.prim_func
def s_bare_assign(A: T.Buffer((4,), "int32"), n: T.int32):
    x = n + 1
    x = x * 2
    A[0] = x


@T.prim_func
def s_aug_assign(A: T.Buffer((4,), "int32")):
    acc: T.int32 = 0
    for i in range(4):
        acc += A[i]
    A[0] += acc


@T.prim_func
def s_scalar_dtypes(A: T.Buffer((4,), "float32")):
    a: T.int8 = T.int8(1)
    b: T.uint16 = T.uint16(2)
    c: T.int64 = T.int64(3)
    d: T.float64 = T.float64(0.25)
    e: T.bfloat16 = T.bfloat16(1.5)
    f: T.bool = T.bool(False)
    A[0] = T.Cast("float32", a) + T.Cast("float32", b) + T.Cast("float32", c) + T.Cast("float32", d) + T.Cast("float32", e)


@T.prim_func
def s_alloc_local_scalar(A: T.Buffer((4,), "int32")):
    phase = T.alloc_local((1,), "int32")
    phase[0] = 0
    aux = T.alloc_local((1,), "int32")
    A[0] = phase[0] + aux[0]


@T.prim_func
def s_local_scalar_layout_none(A: T.Buffer((4,), "int32")):
    phase = T.alloc_local((1,), "int32", layout=None)
    phase[0] = 0
    A[0] = phase[0]


@T.prim_func
def s_shared_scalar(A: T.Buffer((4,), "uint64")):
    bar = T.shared_scalar("uint64")
    bar = T.uint64(0)
    A[0] = bar


@T.prim_func
def s_scalar_buffer_ref(A: T.Buffer((4,), "int32")):
    x: T.int32 = 5
    x = x + 1
    T.evaluate(T.address_of(x))
    A[0] = x


@T.prim_func
def s_decl_scalar(A: T.Buffer((4,), "float16")):
    pool = T.alloc_buffer((16,), "uint8", scope="shared.dyn")
    E = T.decl_scalar("float16", pool.data, "shared.dyn", 2)
    E = E + T.float16(1)
    A[0] = E


@T.prim_func
def s_pointer_bind(A: T.Buffer((4,), "uint64")):
    buf = T.alloc_shared((4,), "uint32")
    ptr = buf.ptr_to([1])
    A[0] = T.reinterpret("uint64", ptr)


@T.prim_func
def s_let_handle(A: T.Buffer((4,), "uint64")):
    smem = T.alloc_shared((128,), "float16")
    p: T.let[T.handle("float16", "shared")] = smem.data
    A[0] = T.reinterpret("uint64", p)


@T.prim_func
def s_local_vector_annot(A: T.Buffer((8,), "float32")):
    x: T.float32[8]
    for i in range(8):
        x[i] = A[i]
    A[0] = x[7]


@T.prim_func
def s_let_chain_types(A: T.Buffer((4,), "float32"), x: T.float32):
    a: T.let[T.float16] = T.Cast("float16", x)
    b: T.let[T.bool] = x > T.float32(0)
    c: T.let[T.uint8] = T.uint8(3)
    if b:
        A[0] = T.Cast("float32", a) + T.Cast("float32", c)


# ---------------------------------------------------------------------------
# l_: loops
# ---------------------------------------------------------------------------

@T.prim_func
def l_range(A: T.Buffer((16,), "int32")):
    for i in range(16):
        A[i] = i


@T.prim_func
def l_range_start_step(A: T.Buffer((16,), "int32")):
    for i in range(2, 10):
        A[i] = i
    for j in range(0, 16, 4):
        A[j] = j


@T.prim_func
def l_range_symbolic(A: T.Buffer((16,), "int32"), n: T.int32):
    for i in range(n):
        A[i] = i
    for i in range(1, n - 1):
        A[i] = A[i - 1]


@T.prim_func
def l_serial_annotations(A: T.Buffer((16,), "int32")):
    for i in T.serial(8, annotations={"pragma_x": 1, "software_pipeline_stage": [0, 1]}):
        A[i] = i
    for i in T.serial(2, 10):
        A[i] = 0


@T.prim_func
def l_serial_unroll(A: T.Buffer((16,), "int32")):
    for i in T.serial(4, unroll=True):
        A[i] = i
    for i in T.serial(4, unroll=2):
        A[i + 4] = i
    for i in T.serial(4, unroll=False):
        A[i + 8] = i


@T.prim_func
def l_unroll(A: T.Buffer((16,), "int32")):
    for i in T.unroll(4):
        A[i] = i
    for i in T.unroll(2, 6):
        A[i] = i


@T.prim_func
def l_vectorized(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in T.vectorized(4):
        B[i] = A[i]


@T.prim_func
def l_parallel(A: T.Buffer((16,), "float32")):
    for i in T.parallel(16):
        A[i] = T.float32(0)


@T.prim_func
def l_thread_binding(A: T.Buffer((128,), "float32")):
    for tx in T.thread_binding(128, thread="threadIdx.x"):
        A[tx] = T.float32(0)


@T.prim_func
def l_grid(A: T.Buffer((8, 16), "int32")):
    for i, j in T.grid(8, 16):
        A[i, j] = i * 16 + j


@T.prim_func
def l_grid_three(A: T.Buffer((2, 3, 4), "int32")):
    for i, j, k in T.grid(2, 3, 4):
        A[i, j, k] = i + j + k


@T.prim_func
def l_nested_dependent(A: T.Buffer((8, 8), "int32")):
    for i in range(8):
        for j in range(i):
            A[i, j] = 1


@T.prim_func
def l_uint32_loop(A: T.Buffer((128,), "float32")):
    for i in range(T.uint32(128)):
        A[i] = T.float32(0)


@T.prim_func
def l_int64_loop(A: T.Buffer((128,), "float32")):
    for i in range(T.int64(128)):
        A[i] = T.float32(0)


@T.prim_func
def l_sibling_names(A: T.Buffer((16,), "int32")):
    for i in range(4):
        A[i] = i
    for i in range(4):
        A[i + 4] = i
    for i in range(4):
        for i_1 in range(2):
            A[i + i_1] = 0


@T.prim_func
def l_serial_step_dtype(A: T.Buffer((128,), "float32")):
    for i in T.serial(4, 128, step=2, dtype="uint32"):
        A[i] = T.float32(1)
    for j in T.serial(16, dtype="uint32"):
        A[j] = T.float32(2)


@T.prim_func
def l_kinds_with_args(A: T.Buffer((64,), "float32")):
    for i in T.vectorized(0, 8, step=2):
        A[i] = T.float32(0)
    for j in T.parallel(4, annotations={"pragma_parallel": 1}):
        A[j] = T.float32(1)
    for k in T.unroll(8, annotations={"pragma_x": "y"}):
        A[k] = T.float32(2)
    for t in T.thread_binding(2, 34, thread="threadIdx.y"):
        A[t] = T.float32(3)


@T.prim_func
def l_grid_uint32(A: T.Buffer((8, 16), "float32")):
    for i, j in T.grid(8, 16, dtype="uint32"):
        A[i, j] = T.float32(0)


@T.prim_func
def l_grid_tuple_extent(A: T.Buffer((16,), "int32")):
    for lvs in T.grid(10, (2, 12)):
        A[lvs[1]] = lvs[0]


# ---------------------------------------------------------------------------
# c_: control flow
# ---------------------------------------------------------------------------

@T.prim_func
def c_while(A: T.Buffer((10,), "int32")):
    i: T.int32 = 0
    while i < 10:
        A[i] = i * 2
        i = i + 1


@T.prim_func
def c_if_else(A: T.Buffer((4,), "int32"), n: T.int32):
    if n > 0:
        A[0] = 1
    else:
        A[0] = 2
    if n == 3:
        A[1] = 3


@T.prim_func
def c_elif_chain(A: T.Buffer((4,), "int32"), n: T.int32):
    if n < 0:
        A[0] = -1
    elif n == 0:
        A[0] = 0
    else:
        A[0] = 1


@T.prim_func
def c_assert(A: T.Buffer((4,), "int32"), n: T.int32):
    assert n > 0, "n must be positive"
    A[0] = n


@T.prim_func
def c_break(A: T.Buffer((10,), "int32")):
    for i in T.serial(10):
        if i > 5:
            break
        A[i] = i


@T.prim_func
def c_continue(A: T.Buffer((10,), "int32")):
    for i in T.serial(10):
        if i % 2 == 0:
            continue
        A[i] = i


@T.prim_func
def c_break_while(A: T.Buffer((10,), "int32")):
    i: T.int32 = 0
    while i < 10:
        A[i] = i * 2
        if A[i] > 10:
            break
        i = i + 1


@T.prim_func
def c_return_early(n: T.int32) -> T.int32:
    if n < 0:
        return 0
    return n


@T.prim_func
def c_evaluate(n: T.int32):
    T.evaluate(0)
    T.evaluate(n + 1)


@T.prim_func
def c_evaluate_no_ops(A: T.Buffer((4,), "int32"), n: T.int32):
    T.evaluate(T.int64(0))
    T.evaluate(T.bool(False))
    T.evaluate(T.float32(0))
    A[0] = 1
    T.evaluate(0)
    for i in range(4):
        T.evaluate(0)
    if n > 0:
        T.evaluate(0)
        T.evaluate(0)
    else:
        T.evaluate(0)
        A[1] = 0


@T.prim_func
def c_loop_control_nodes(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if A[i] > 0:
            T.Break()
        if A[i] < 0:
            T.Continue()
        A[i] = 1


@T.prim_func
def c_bool_ops(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32):
    if a > 0 and b > 0:
        A[0] = 1
    if a < 0 or not (b < 0):
        A[1] = 1
    if (a >= 1) & (b <= 2):
        A[2] = 1


@T.prim_func
def c_nested_loops_if(A: T.Buffer((8, 8), "int32")):
    for i in range(8):
        for j in range(8):
            if i == j:
                A[i, j] = 1
            else:
                if i < j:
                    A[i, j] = 2
                else:
                    A[i, j] = 0


@T.prim_func
def c_while_complex(A: T.Buffer((10,), "int32"), n: T.int32):
    i: T.int32 = 0
    j: T.int32 = n
    while i < j and A[i] != 0:
        A[i] = A[j - 1]
        i = i + 1
        j = j - 1


@T.prim_func
def c_assert_kinds(A: T.Buffer((4,), "int32"), n: T.int32):
    assert n >= 0, "negative"
    assert n < 1024, ("ValueError", ["n too large: ", "limit"])
    A[0] = n


# ---------------------------------------------------------------------------
# d_: device entry, attributes, scope ids, launch_thread, hints
# ---------------------------------------------------------------------------

@T.prim_func
def d_device_entry(A: T.Buffer((128,), "float32")):
    T.device_entry()
    bx = T.cta_id([4])
    tx = T.thread_id([128])
    A[tx] = T.float32(1)


@T.prim_func
def d_device_entry_nested(A: T.Buffer((128,), "float32")):
    A[0] = T.float32(0)
    T.device_entry()
    tx = T.thread_id([128])
    A[tx] = T.float32(1)


@T.prim_func
def d_launch_bounds(A: T.Buffer((128,), "float32")):
    T.device_entry()
    T.attr({"tirx.launch_bounds_min_blocks_per_sm": 2})
    bx = T.cta_id([4])
    tx = T.thread_id([128])
    A[tx] = T.float32(1)


@T.prim_func
def d_launch_bounds_cluster(A: T.Buffer((384,), "float32")):
    T.device_entry()
    T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1, "tirx.launch_bounds_max_blocks_per_cluster": 1})
    bx = T.cta_id([4])
    tx = T.thread_id([384])
    A[tx] = T.float32(1)


@T.prim_func
def d_max_registers(A: T.Buffer((128,), "float32")):
    T.device_entry()
    T.attr({"tirx.max_registers": 92})
    tx = T.thread_id([128])
    A[tx] = T.float32(1)


@T.prim_func
def d_attr_in_sequence(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    T.attr({"my_key": 3})
    A[tx] = T.float32(1)


@T.prim_func
def d_attr_with_block(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    with T.attr({"pragma_a": 1, "pragma_b": "x"}):
        A[tx] = T.float32(1)
    A[0] = T.float32(2)


@T.prim_func
def d_attr_node_form(A: T.Buffer((16,), "float32")):
    T.attr(A.data, "storage_alignment", 16)
    A[0] = T.float32(1)


@T.prim_func
def d_scope_ids_all(A: T.Buffer((64,), "float32")):
    T.device_entry()
    clx, cly, clz = T.cluster_id([4, 5, 1])
    bx, by, bz = T.cta_id([8, 10, 1])
    cbx, cby, cbz = T.cta_id_in_cluster([2, 2, 1])
    pair = T.cta_id_in_pair()
    wg = T.warpgroup_id([2])
    wid_in_wg = T.warp_id_in_wg([4])
    tid_in_wg = T.thread_id_in_wg([128])
    warp = T.warp_id([8])
    lane = T.lane_id([32])
    tx = T.thread_id([256])
    A[0] = T.Cast("float32", clx + bx + cbx + pair + wg + wid_in_wg + tid_in_wg + warp + lane + tx)


@T.prim_func
def d_scope_ids_unassigned(A: T.Buffer((64,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    tx = T.thread_id([128])
    A[0] = T.Cast("float32", tx)


@T.prim_func
def d_scope_ids_named(A: T.Buffer((16,), "int32")):
    T.device_entry()
    cl = T.scope_id([2], "kernel", "cluster")
    bx = T.scope_id(None, "kernel", "cta")
    c = T.scope_id([2], "cluster", "cta")
    p = T.scope_id([2], "cluster", "cta_pair")
    wg = T.scope_id([2], "cta", "warpgroup")
    w = T.scope_id([4], "warpgroup", "warp")
    tx = T.scope_id([32], "warp", "thread", "uint32")
    A[tx] = bx


@T.prim_func
def d_scope_ids_deferred(A: T.Buffer((64,), "float32")):
    T.device_entry()
    bx = T.cta_id()
    tx = T.thread_id()
    A[0] = T.Cast("float32", bx + tx)


@T.prim_func
def d_scope_ids_preferred_uint32(A: T.Buffer((64,), "float32")):
    T.device_entry()
    bx = T.cta_id([128])
    cx, cy = T.cta_id_in_cluster([2, 2], preferred=[2, 2], dtype="uint32")
    tx = T.thread_id([128], dtype="uint32")
    A[0] = T.Cast("float32", cx + cy + tx)


@T.prim_func
def d_launch_thread(A: T.Buffer((128,), "float32")):
    bx = T.launch_thread("blockIdx.x", 4)
    tx = T.launch_thread("threadIdx.x", 128)
    A[tx] = T.float32(1)


@T.prim_func
def d_launch_thread_nested(A: T.Buffer((128,), "float32")):
    A[0] = T.float32(0)
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    A[threadIdx_x] = T.float32(1)


@T.prim_func
def d_env_thread(A: T.Buffer((128,), "float32")):
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(tx, 128)
    A[tx] = T.float32(1)


@T.prim_func
def d_hint(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    T.hint("persistent tile scheduler")
    A[tx] = T.float32(1)


@T.prim_func
def d_hint_kwargs(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    with T.hint("software pipeline", mode="persistent", depth="4"):
        A[tx] = T.float32(1)
    A[0] = T.float32(2)


@T.prim_func
def d_hint_access(A: T.Buffer((128, 64), "float32")):
    T.device_entry()
    bx = T.cta_id([2])
    T.hint("partition", access=A[bx * 64 : bx * 64 + 64, 0:64])
    A[0, 0] = T.float32(2)


@T.prim_func
def d_hint_sole():
    T.hint("sole statement")
    T.evaluate(1)


@T.prim_func
def d_attr_values(A: T.Buffer((4,), "float32")):
    with T.attr({"flag": True, "ratio": 0.5, "name": "x", "n": -3}):
        A[0] = T.float32(1)


# ---------------------------------------------------------------------------
# a_: allocation and buffer declaration
# ---------------------------------------------------------------------------

@T.prim_func
def a_alloc_shared(A: T.Buffer((64,), "float16")):
    S = T.alloc_shared((64,), "float16")
    S2 = T.alloc_shared((8, 8))
    S[0] = A[0]
    S2[0, 0] = T.float32(0)


@T.prim_func
def a_alloc_local(A: T.Buffer((8,), "float32")):
    r = T.alloc_local((8,))
    h = T.alloc_local((4, 2), "float16")
    r[0] = A[0]
    h[0, 0] = T.float16(0)


@T.prim_func
def a_alloc_buffer_scopes(A: T.Buffer((16,), "uint8")):
    P = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    G = T.alloc_buffer((16,))
    L = T.alloc_buffer((4,), "int32", scope="local")
    S = T.alloc_buffer((4,), "int32", scope="shared")
    P[0] = A[0]
    G[0] = T.float32(1)
    L[0] = 1
    S[0] = L[0]


@T.prim_func
def a_alloc_align(A: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((16,), "float32", scope="shared", align=128)
    L = T.alloc_buffer((16,), "float32", scope="local", layout=None)
    S[0] = A[0]
    L[0] = A[1]


@T.prim_func
def a_alloc_smem_alias(A: T.Buffer((16,), "float32")):
    S = T.smem((16,), "float32")
    S[0] = A[0]


@T.prim_func
def a_alloc_with_layout(A: T.Buffer((16,), "float16")):
    S = T.alloc_shared((128, 128), "float16", layout=T.TileLayout(T.S[(8, 16, 8, 16):(1024, 16, 128, 1)]))
    S[0, 0] = A[0]


@T.prim_func
def a_alloc_in_loop(A: T.Buffer((16,), "float32")):
    for i in range(4):
        L = T.alloc_local((4,))
        L[0] = A[i]
        A[i] = L[0]


@T.prim_func
def a_alloc_annotations(A: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((16,), "float32", scope="shared", annotations={"pragma_pool": 1})
    S[0] = A[0]


@T.prim_func
def a_decl_buffer_data(A: T.Buffer((64,), "float16")):
    B = T.decl_buffer((8, 8), "float16", data=A.data)
    B[0, 0] = T.float16(1)


@T.prim_func
def a_decl_buffer_offset(A: T.Buffer((128,), "float16")):
    pool = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    B = T.decl_buffer((64,), "float16", data=pool.data, elem_offset=64, scope="shared.dyn", layout=None)
    C = T.decl_buffer((4, 4), "float32", data=pool.data, elem_offset=128, scope="shared.dyn")
    B[0] = A[0]
    C[0, 0] = T.float32(0)


@T.prim_func
def a_decl_buffer_byte_offset(A: T.Buffer((64,), "float16"), n: T.int32):
    B = T.decl_buffer((16,), "float16", data=A.data, byte_offset=32)
    C = T.decl_buffer((8,), "float32", data=A.data, byte_offset=n * 4)
    D = T.decl_buffer((8,), "int8", data=A.data, byte_offset=3)
    B[0] = T.float16(1)
    C[0] = T.float32(1)
    D[0] = T.int8(1)


@T.prim_func
def a_decl_buffer_strides(A: T.Buffer((64,), "float32")):
    B = T.decl_buffer((4, 4), "float32", data=A.data, strides=(16, 1))
    B[1, 1] = T.float32(1)


@T.prim_func
def a_decl_buffer_align_factor(A: T.Buffer((64,), "float32")):
    L = T.alloc_buffer((64,), "float32", scope="local")
    B = T.decl_buffer((2,), "float32", data=L.data, elem_offset=8, scope="local", align=128)
    C = T.decl_buffer((2,), "float32", data=L.data, elem_offset=8, scope="local", offset_factor=8)
    B[0] = C[0]


@T.prim_func
def a_decl_buffer_layout(A: T.Buffer((64,), "float16")):
    S = T.alloc_shared((64,), "float16")
    B = T.decl_buffer((8, 8), "float16", data=S.data, scope="shared", layout=T.TileLayout(T.S[(8, 8):(1, 8)]))
    B[0, 1] = A[0]


@T.prim_func
def a_tmem_decl(A: T.Buffer((4,), "float32")):
    T.device_entry()
    tmem_addr = T.alloc_shared((1,), "uint32")
    acc = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout=T.TileLayout(T.S[(128, 256):(1 @ TLane, 1 @ TCol)]))
    A[0] = acc[0, 0]


@T.prim_func
def a_tmem_decl_const_addr():
    T.device_entry()
    Q = T.decl_buffer((2, 64, 288), "bfloat16", scope="tmem", allocated_addr=256, layout=T.TileLayout(T.S[(2, 64, 288):(64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    Q_tail = Q.sub[:, :, 256:288]
    T.evaluate(Q_tail[0, 0, 0])


@T.prim_func(check_well_formed=False)
def a_tmem_alias_buffer():
    with T.launch_thread("blockIdx.x", 1):
        T.launch_thread("threadIdx.x", 128)
        addr = T.alloc_shared((1,), "uint32", layout=None)
        addr_alias = T.Buffer((1,), "uint32", data=addr.data, scope="shared")
        buf = T.decl_buffer((64,), scope="tmem", layout=None, allocated_addr=addr_alias[0])


@T.prim_func
def a_tmem_fragments(A: T.Buffer((4,), "float32")):
    T.device_entry()
    t = T.tmem((128, 64), "float32")
    acc = T.tmem((128, 64), "float32", layout=T.TileLayout(T.S[(128, 64):(1 @ TLane, 1 @ TCol)]), allocated_addr=64)
    r = T.wg_reg_tile(32, "float16")
    fr = T.alloc_tcgen05_ldst_frag("16x64b", (64, 64), "float32")
    fr128 = T.alloc_tcgen05_ldst_frag("32x32b", (128, 32), "float32")
    half = T.alloc_cast_frag(fr, "float16")
    A[0] = t[0, 0] + acc[0, 0] + T.Cast("float32", r[0, 0]) + fr[0, 0] + fr128[0, 0] + T.Cast("float32", half[0, 0])


@T.prim_func
def a_allocated_addr_trn():
    A = T.alloc_buffer((10,), "float32", scope="trn.sbuf", allocated_addr=1024)
    A[0] = T.float32(0)


@T.prim_func
def a_access_ptr(A: T.Buffer((64,), "float16")):
    S = T.alloc_shared((64,), "float16")
    T.evaluate(S.access_ptr("rw"))
    T.evaluate(S.access_ptr("r", offset=8, extent=16))
    T.evaluate(A.ptr_to([4]))


@T.prim_func
def a_buffer_data(A: T.Buffer((64,), "float16")):
    T.evaluate(A.data)
    p: T.let[T.handle("float16", "global")] = A.data
    T.evaluate(p)


@T.prim_func
def a_name_dedup(A: T.Buffer((4,), "int32")):
    for i in range(2):
        x: T.int32 = i
        A[i] = x
    for i in range(2):
        x: T.int32 = i + 1
        A[i + 2] = x
    buf = T.alloc_local((2,), "int32")
    buf_1 = T.alloc_local((2,), "int32")
    buf[0] = buf_1[0]


@T.prim_func
def a_name_reserved(A: T.Buffer((4,), "int32")):
    R = T.alloc_local((2,), "int32")
    cls = T.alloc_local((2,), "int32")
    R[0] = cls[0]
    A[0] = R[0]


# ---------------------------------------------------------------------------
# v_: buffer views and regions
# ---------------------------------------------------------------------------

@T.prim_func
def v_view_reshape(A: T.Buffer((64,), "float32")):
    S = T.alloc_shared((64,), "float32")
    B = S.view(8, 8)
    C = S.view(-1, 16)
    B[1, 2] = A[0]
    C[0, 3] = A[1]


@T.prim_func
def v_view_dtype(A: T.Buffer((4,), "float32")):
    L = T.alloc_local((8, 8), "float16")
    L32 = L.view("float32")
    L64 = L.view("float64")
    L8 = L.view("uint8")
    L32[0, 0] = A[0]
    L64[0, 0] = T.float64(0)
    L8[0, 0] = T.uint8(0)


@T.prim_func
def v_permute(A: T.Buffer((4,), "float16")):
    L = T.alloc_local((8, 4), "float16", layout=T.TileLayout(T.S[(8, 4):(4, 1)]))
    B = L.permute(1, 0)
    B[0, 0] = A[0]


@T.prim_func
def v_local(A: T.Buffer((4,), "float16")):
    T.device_entry()
    R = T.alloc_local((2,), "float16")
    W = R.view(8, 8, layout=T.TileLayout(T.S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)]))
    Wl = W.local()
    W2 = W.local(2)
    Wl[0] = A[0]
    W2[1] = A[1]


@T.prim_func
def v_local_layout(A: T.Buffer((4,), "float32")):
    T.device_entry()
    R = T.alloc_local((6,), "float32")
    B = R.view(32, 2, layout=T.TileLayout(T.S[(32, 2):(1 @ laneid, 2)] + 3))
    B_flat = B.local()
    B_2d = B.local(2, 3)
    B_storage = B.local(2, layout=B.layout.storage())
    B_flat[5] = A[0]
    B_2d[1, 2] = A[1]
    B_storage[1] = A[2]


@T.prim_func
def v_sub(A: T.Buffer((4,), "float16")):
    L = T.alloc_local((4, 8, 16), "float16", layout=T.TileLayout(T.S[(4, 8, 16):(256, 16, 1)]))
    B = L.sub[1, 2:6]
    C = L.sub[:, 1::2]
    B[0, 0] = A[0]
    C[0, 0, 0] = A[1]


@T.prim_func
def v_sub_dynamic(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((2, 16, 8), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 16, 8):(128, 8, 1)])))
    for w in range(16):
        F = S.sub[:, w]
        F[0, 0] = A[0]


@T.prim_func
def v_tile(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((128, 16), "float16", layout=T.TileLayout(T.S[(128, 16):(16, 1)]))
    for a in range(2):
        for b in range(4):
            K = S.tile((0, (2, 4, -1)))[a, b, :]
            K[0, 0] = A[0]


@T.prim_func
def v_rearrange(A: T.Buffer((4,), "float16")):
    L = T.alloc_local((8, 4), "float16", layout=T.TileLayout(T.S[(8, 4):(4, 1)]))
    B = L.rearrange("(outer inner) tail -> outer tail inner", outer=2)
    B[0, 0, 0] = A[0]


@T.prim_func
def v_chunk(A: T.Buffer((4, 8, 16), "float16"), B: T.Buffer((4, 8, 16), "float16")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    T.cta.copy(B.chunk((None, None, 2))[:, :, 1], A.chunk((None, None, 2))[:, :, 0])


@T.prim_func
def v_view_chain(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((64, 128), "float16", layout=T.TileLayout(T.S[(64, 128):(128, 1)]))
    for wx in range(4):
        J = S.view(8, 4, 2, 128).sub[:, wx].view(16, 128)
        J[0, 0] = A[0]


@T.prim_func
def v_region_slices(A: T.Buffer((128, 64), "float16"), B: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    for k in range(2):
        T.cta.copy(B[0:128, k * 32 : k * 32 + 32], A[:, k * 32 : k * 32 + 32])
    T.cta.copy(B[0, 0:64], A[1, :])
    T.cta.copy(B, A)


@T.prim_func
def v_vector_index(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    B[0:4] = A[T.Ramp(4, 1, 4)]
    B[8:16:2] = A[T.Ramp(0, 2, 4)]
    B[T.Ramp(16, 3, 4)] = T.Broadcast(T.float32(1), 4)


@T.prim_func
def v_vload(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    B[0:4] = A.vload([4], "float32x4")


@T.prim_func
def v_view_local_scope_decl(A: T.Buffer((4,), "float16")):
    R1 = T.alloc_local((8,), "float16", layout=None)
    B = T.decl_buffer((2, 4), "float16", data=R1.data, scope="local", layout=None)
    B[1, 1] = A[0]


# ---------------------------------------------------------------------------
# y_: layouts
# ---------------------------------------------------------------------------

@T.prim_func
def y_shard_row_major(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((8, 16), "float16", layout=T.TileLayout(T.S[8, 16]))
    S2 = T.alloc_shared((8, 16), "float16", layout=T.TileLayout(T.S[(8, 16):(1, 8)]))
    S[0, 0] = A[0]
    S2[0, 0] = A[1]


@T.prim_func
def y_thread_axes(A: T.Buffer((4,), "float16")):
    T.device_entry()
    L1 = T.alloc_local((2,), "float16")
    W = L1.view(64, 64, layout=T.TileLayout(T.S[(8, 8, 8, 4, 2):(6, 4 @ laneid, 2, 1 @ laneid, 1)]))
    W[0, 0] = A[0]


@T.prim_func
def y_axis_names(A: T.Buffer((4,), "float32")):
    T.device_entry()
    L1 = T.alloc_local((4,), "float32")
    V1 = L1.view(4, 128, 4, layout=T.TileLayout(T.S[(4, 128, 4):(1 @ Axis.warpid, 1 @ Axis.tx, 1)]))
    V2 = L1.view(2, 128, 4, layout=T.TileLayout(T.S[(2, 128, 4):(1 @ Axis.wgid, 1 @ Axis.tid_in_wg, 1)]))
    V3 = L1.view(4, 32, 4, layout=T.TileLayout(T.S[(4, 32, 4):(1 @ Axis.wid_in_wg, 1 @ Axis.laneid, 1)]))
    V1[0, 0, 0] = A[0]
    V2[0, 0, 0] = A[1]
    V3[0, 0, 0] = A[2]


@T.prim_func
def y_cta_axes(A: T.Buffer((4,), "float32")):
    T.device_entry()
    L1 = T.alloc_local((4,), "float32")
    V = L1.view(2, 2, 2, 4, layout=T.TileLayout(T.S[(2, 2, 2, 4):(1 @ Axis.bx, 1 @ Axis.by, 1 @ Axis.cbx, 1)]))
    V[0, 0, 0, 0] = A[0]


@T.prim_func
def y_replica(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((8,), "float16", layout=T.TileLayout(T.S[8:4 @ laneid] + T.R[4:1 @ laneid]))
    S[0] = A[0]


@T.prim_func
def y_offsets(A: T.Buffer((4,), "float16")):
    B = T.alloc_shared((8,), "float16", layout=T.TileLayout(T.S[8:4 @ laneid] + 1 @ laneid))
    C = T.alloc_shared((8,), "float16", layout=T.TileLayout(T.S[8:4 @ laneid] + 1 @ laneid + 2 @ warpid + 64))
    D = T.alloc_shared((32,), "float16", layout=T.TileLayout(T.S[(1,):(1,)] + T.R[(8, 4):(4 @ laneid, 1 @ laneid)] + 2 @ warpid))
    E = T.alloc_shared((8,), "float16", layout=T.TileLayout(T.S[8] + 5))
    B[0] = A[0]
    C[0] = A[1]
    D[0] = A[2]
    E[0] = A[3]


@T.prim_func
def y_from_iters(A: T.Buffer((4,), "float32")):
    T.device_entry()
    L1 = T.alloc_local((16,), "float32")
    V = L1.view(4, 128, 2, 2, layout=TileLayout.from_iters([Iter(4, 16, "m"), Iter(128, 1, "tx"), Iter(2, 1, "m")], [Iter(2, 1, "laneid")], {}))
    V[0, 0, 0, 0] = A[0]


@T.prim_func
def y_from_iters_empty(A: T.Buffer((4,), "float32")):
    S = T.alloc_shared((1,), "float32", layout=TileLayout.from_iters([], [], {"m": 5}))
    S[0] = A[0]


@T.prim_func
def y_compose_swizzle(A: T.Buffer((4,), "float16")):
    S = T.alloc_shared((64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])))
    S2 = T.alloc_shared((64, 256), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64, 4):(64, 1, 4096)])))
    S3 = T.alloc_shared((8, 64), "bfloat16", layout=T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(8, 64):(64, 1)]), swizzle_inner=False))
    S[0, 0] = A[0]
    S2[0, 0] = A[1]
    S3[0, 0] = T.bfloat16(0)


@T.prim_func
def y_tmem_layouts(A: T.Buffer((4,), "float32")):
    T.device_entry()
    acc = T.decl_buffer((128, 64), "float32", scope="tmem", allocated_addr=0, layout=T.TileLayout(T.S[(128, 64):(1 @ TLane, 1 @ TCol)]))
    R1 = T.alloc_local((32,), "float32")
    B = R1.view(64, 64, layout=tcgen05_atom_layout("16x256b", (64, 64), "float32"))
    A[0] = acc[0, 0] + B[0, 0]


@T.prim_func
def y_layout_tile(A: T.Buffer((4,), "float16")):
    T.device_entry()
    R1 = T.alloc_local((2,), "float16")
    lay = T.meta_var(T.TileLayout(T.S[(1, 2):(2, 1)]).tile(T.TileLayout(T.S[32:1 @ laneid]), (8, 4), (1, 2)))
    B = R1.view(8, 8, layout=lay)
    B_local = B.local(2)
    B_local[0] = A[0]


@T.prim_func
def y_symbolic_stride(A: T.Buffer((4,), "float16"), n: T.int32):
    S = T.alloc_shared((8, 64), "float16", layout=T.TileLayout(T.S[(8, 64):(n, 1)]))
    S[0, 0] = A[0]


@T.prim_func
def y_memory_axes(A: T.Buffer((4,), "float32")):
    S = T.alloc_buffer((128, 512), "float32", scope="trn.sbuf", layout=T.TileLayout(T.S[(128, 512):(1 @ Axis.P, 1 @ Axis.F)]))
    S[0, 0] = A[0]


@T.prim_func
def y_layout_methods(A: T.Buffer((4,), "float32")):
    T.device_entry()
    P = T.alloc_local((8, 4), "float16", layout=T.TileLayout(T.S[(8, 8):(8, 1)]).pack(2))
    U = T.alloc_local((8, 8), "float16", layout=T.ComposeLayout(2, 3, 3, T.TileLayout(T.S[(8, 4):(4, 1)])).unpack(2))
    S = T.alloc_local((4,), layout=T.TileLayout(T.S[(2, 4):(1 @ laneid, 1)] + T.R[2:4 @ laneid] + 3 + 1 @ laneid).storage())
    C = T.alloc_local((64,), layout=T.TileLayout(T.S[(8, 1, 8):(8, 5, 1)] + 0).canonicalize())
    Q = T.alloc_shared((4, 8), layout=T.TileLayout(T.S[(8, 16):(16, 1)]).slice((8, 16), [(2, 6), (4, 12)]))
    G = T.alloc_shared((16, 16), layout=T.TileLayout(T.S[(4, 4):(4, 1)]).tile_to((16, 16), (4, 4)))
    D = T.alloc_local((4, 8), layout=T.TileLayout(T.S[(2, 4):(4, 1)]).direct_sum(T.TileLayout(T.S[(2, 2):(1 @ laneid, 2 @ laneid)]), (2, 2), (2, 4)))
    E = T.alloc_shared((8, 4, 2), layout=T.TileLayout(T.S[(8, 4):(4, 1)]).broadcast(2))
    F = T.alloc_local((2, 8, 4), layout=T.TileLayout(T.S[(8, 4):(4, 1)]).broadcast(2, 0, "laneid"))
    H = T.alloc_shared((8, 2, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)])).broadcast(2, -2))
    A[0] = T.Cast("float32", P[0, 0] + U[0, 0] + H[0, 0, 0]) + S[0] + C[0] + Q[0, 0] + G[0, 0] + D[0, 0] + E[0, 0, 0] + F[0, 0, 0]


@T.prim_func
def y_layout_spec_sum(A: T.Buffer((4,), "float32")):
    J = T.alloc_local((8,), layout=T.TileLayout(T.S[8:1] + 2 + T.S[4:1] + 3))
    K = T.alloc_local((8,), layout=T.TileLayout(T.R[2:1 @ laneid] + T.S[8:1] + T.R[4:1 @ warpid]))
    A[0] = J[0] + K[0]


@T.prim_func
def y_layout_factories(A: T.Buffer((4,), "float32")):
    T.device_entry()
    W = T.alloc_local((128, 64), layout=wg_local_layout(64))
    W64 = T.alloc_local((64, 32), layout=wg_local_layout(32, rows=64))
    B = T.alloc_local((64, 64), layout=tcgen05_atom_layout("16x128b", (64, 64), "float32"))
    H = T.alloc_local((128, 64), "float16", layout=tcgen05_atom_layout("16x256b", (128, 64), "float16"))
    P = T.alloc_local((64, 64), layout=tcgen05_atom_layout("32x32b", (64, 64), "float32"))
    acc = T.decl_buffer((64, 64), "float32", scope="tmem", allocated_addr=0, layout=tmem_datapath_layout("F", 64, 64, sub_slab=1))
    A[0] = W[0, 0] + W64[0, 0] + B[0, 0] + T.Cast("float32", H[0, 0]) + P[0, 0] + acc[0, 0]


# ---------------------------------------------------------------------------
# e_: expressions and literals
# ---------------------------------------------------------------------------

@T.prim_func
def e_arith(A: T.Buffer((8,), "int32"), a: T.int32, b: T.int32, c: T.int32):
    A[0] = a + b * c
    A[1] = (a + b) * c
    A[2] = a - (b - c)
    A[3] = a - b - c
    A[4] = a * (b // c)
    A[5] = a // b * c
    A[6] = a % b
    A[7] = (a + 1) % (b - 1)


@T.prim_func
def e_unfolded(A: T.Buffer((4,), "int32"), a: T.int32):
    A[0] = T.Add(1, 2)
    A[1] = T.Add(a, 0)
    A[2] = T.Mul(a, 1)
    A[3] = T.Sub(a, a)


@T.prim_func
def e_div_mod(A: T.Buffer((8,), "int32"), a: T.int32, b: T.int32, x: T.float32, y: T.float32, F: T.Buffer((2,), "float32")):
    A[0] = T.floordiv(a, b)
    A[1] = T.floormod(a, b)
    A[2] = T.truncdiv(a, b)
    A[3] = T.truncmod(a, b)
    A[4] = T.FloorDiv(a, 4)
    A[5] = T.FloorMod(a, 4)
    A[6] = T.Div(a, b)
    F[0] = x / y


@T.prim_func
def e_min_max(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32):
    A[0] = T.min(a, b)
    A[1] = T.max(a, b)
    A[2] = T.min(T.max(a, 0), 127)
    A[3] = T.Min(a, 1)


@T.prim_func
def e_compare(A: T.Buffer((8,), "bool"), a: T.int32, b: T.int32):
    A[0] = a < b
    A[1] = a <= b
    A[2] = a > b
    A[3] = a >= b
    A[4] = a == b
    A[5] = a != b
    A[6] = T.LT(1, 2)
    A[7] = T.EQ(a < b, a == b)


@T.prim_func
def e_logical(A: T.Buffer((4,), "bool"), p: T.bool, q: T.bool):
    A[0] = p and q
    A[1] = p or q
    A[2] = not p
    A[3] = T.Not(T.bool(True))


@T.prim_func
def e_logical_nodes(A: T.Buffer((2,), "bool"), p: T.bool, q: T.bool):
    A[0] = T.And(p, T.bool(True))
    A[1] = T.Or(T.bool(False), q)


@T.prim_func
def e_bitwise(A: T.Buffer((8,), "uint32"), a: T.uint32, b: T.uint32):
    A[0] = a & b
    A[1] = a | b
    A[2] = a ^ b
    A[3] = ~a
    A[4] = a << T.uint32(2)
    A[5] = a >> T.uint32(3)
    A[6] = T.bitwise_and(a, T.uint32(255))
    A[7] = T.shift_left(b, T.uint32(1))


@T.prim_func
def e_bitwise_int(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32):
    A[0] = a & 255
    A[1] = (a >> 4) | (b << 4)
    A[2] = T.bitwise_xor(a, b)
    A[3] = T.bitwise_not(a)


@T.prim_func
def e_unary_minus(A: T.Buffer((2,), "int32"), a: T.int32, F: T.Buffer((2,), "float32"), x: T.float32):
    A[0] = -a
    A[1] = 0 - a
    F[0] = -x


@T.prim_func
def e_select(A: T.Buffer((4,), "int32"), a: T.int32, b: T.int32):
    A[0] = T.Select(a < b, a, b)
    A[1] = T.if_then_else(a < b, a, b)
    A[2] = T.if_then_else(a == 0, 1, T.if_then_else(b == 0, 2, 3))


@T.prim_func
def e_cast(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "int64"), x: T.float32, n: T.int32):
    A[0] = T.Cast("float16", x)
    B[0] = T.Cast("int64", n)
    A[1] = T.float16(x)
    B[1] = T.int64(n)


@T.prim_func
def e_reinterpret(A: T.Buffer((4,), "uint32"), x: T.float32, B: T.Buffer((4,), "float32")):
    A[0] = T.reinterpret("uint32", x)
    B[0] = T.reinterpret("float32", A[1])


@T.prim_func
def e_ramp_broadcast(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32")):
    A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(0), 4)
    B[T.Ramp(4, 1, 4)] = T.Ramp(0, 2, 4)
    B[T.Ramp(8, 2, 4)] = T.Broadcast(7, 4)


@T.prim_func
def e_let_expr(A: T.Buffer((4,), "int32"), a: T.int32):
    x = T.int32()
    A[0] = T.Let(x * x + 1, where={x: a + 1})


@T.prim_func
def e_int_literals(A: T.Buffer((8,), "int64"), B: T.Buffer((8,), "uint32"), C: T.Buffer((4,), "int8"), D: T.Buffer((4,), "uint64"), E: T.Buffer((4,), "int16")):
    A[0] = T.int64(5)
    A[1] = T.int64(-9223372036854775807)
    B[0] = T.uint32(0xFFFFFFFF)
    B[1] = T.uint32(31)
    C[0] = T.int8(-128)
    D[0] = T.uint64(9223372036854775807)
    E[0] = T.int16(-1)


@T.prim_func
def e_int32_literals(A: T.Buffer((4,), "int32")):
    A[0] = -1
    A[1] = 2147483647
    A[2] = -2147483648
    A[3] = 0


@T.prim_func
def e_bool_literals(A: T.Buffer((2,), "bool")):
    A[0] = T.bool(True)
    A[1] = False


@T.prim_func
def e_float_literals(A: T.Buffer((16,), "float32")):
    A[0] = T.float32(0.1)
    A[1] = T.float32(1e-5)
    A[2] = T.float32(1.0)
    A[3] = T.float32(100000.0)
    A[4] = T.float32(1.25)
    A[5] = T.float32(-2.5)
    A[6] = T.float32(1e20)
    A[7] = T.float32(3.14159265358979)
    A[8] = T.float32(1e-30)
    A[9] = T.float32(123456789.0)
    A[10] = T.float32(0.0)
    A[11] = T.float32(-0.0)
    A[12] = T.float32(1e16)
    A[13] = T.float32(1e17)
    A[14] = T.float32(0.5)
    A[15] = T.float32(2.0 ** -20)


@T.prim_func
def e_float_special(A: T.Buffer((4,), "float32"), B: T.Buffer((2,), "float16")):
    A[0] = T.float32("inf")
    A[1] = T.float32("-inf")
    A[2] = T.float32("nan")
    A[3] = T.float32(float("inf"))
    B[0] = T.float16(-65504.0)
    B[1] = T.float16("inf")


@T.prim_func
def e_float_dtypes(A: T.Buffer((4,), "float64"), B: T.Buffer((4,), "bfloat16"), C: T.Buffer((4,), "float8_e4m3fn"), D: T.Buffer((2,), "float16")):
    A[0] = T.float64(0.1)
    A[1] = T.float64(1e30)
    B[0] = T.bfloat16(0.1)
    C[0] = T.float8_e4m3fn(1.5)
    D[0] = T.float16(0.333)


@T.prim_func
def e_math_calls(A: T.Buffer((16,), "float32"), x: T.float32, y: T.float32):
    A[0] = T.exp(x)
    A[1] = T.exp2(x)
    A[2] = T.log(x)
    A[3] = T.log2(x)
    A[4] = T.sqrt(x)
    A[5] = T.rsqrt(x)
    A[6] = T.fabs(x)
    A[7] = T.floor(x)
    A[8] = T.ceil(x)
    A[9] = T.round(x)
    A[10] = T.pow(x, y)
    A[11] = T.tanh(x)
    A[12] = T.sigmoid(x)
    A[13] = T.fma(x, y, x)
    A[14] = T.sin(x) + T.cos(y)
    A[15] = T.erf(x)


@T.prim_func
def e_int_calls(A: T.Buffer((8,), "int32"), a: T.int32, b: T.int32):
    A[0] = T.abs(a)
    A[1] = T.ceildiv(a, b)
    A[2] = T.popcount(a)
    A[3] = T.clz(a)
    A[4] = T.likely(a < b)


@T.prim_func
def e_abs_kinds(A: T.Buffer((4,), "int32"), F: T.Buffer((2,), "float16"), n: T.int64, u: T.uint32, h: T.float16):
    A[0] = T.Cast("int32", T.abs(n))
    A[1] = T.Cast("int32", T.abs(u))
    A[2] = T.abs(-3) + T.ceildiv(8, 3)
    A[3] = T.Cast("int32", T.ceildiv(n, T.int64(4)))
    F[0] = T.abs(h)
    F[1] = T.abs(T.float16(-1.5))


@T.prim_func
def e_call_extern(A: T.Buffer((4,), "int32"), a: T.int32, x: T.float32):
    A[0] = T.call_extern("int32", "my_fn", a, 2)
    A[1] = T.call_pure_extern("int32", "pure_fn", a)
    T.call_extern("void", "side_effect", a)
    A[2] = T.Cast("int32", T.call_extern("float32", "expf", x))


@T.prim_func
def e_address_of(A: T.Buffer((16,), "float32"), B: T.Buffer((2,), "uint64")):
    B[0] = T.reinterpret("uint64", T.address_of(A[4]))
    T.evaluate(T.address_of(A[0]))


@T.prim_func
def e_precedence(A: T.Buffer((8,), "int32"), a: T.int32, b: T.int32, c: T.int32):
    A[0] = (a - b) * (b + c)
    A[1] = a * b + b * c
    A[2] = a // (b * c)
    A[3] = (a * b) % c
    A[4] = a + (b + c)
    A[5] = a * (b * c)
    A[6] = (a // b) // c
    A[7] = T.if_then_else(a > b and b > c, a - b, c)


@T.prim_func
def e_mixed_dtypes(A: T.Buffer((4,), "int64"), a: T.int32, b: T.int64):
    A[0] = T.Cast("int64", a) + b
    A[1] = b * T.int64(4)
    A[2] = b + 1


@T.prim_func
def e_string_args(A: T.Buffer((4,), "int32")):
    T.call_extern("void", "printf_like", "a \"quoted\" string\twith\\escapes")
    T.call_extern("void", "log", "caf\xe9")


@T.prim_func
def e_vector_lanes(A: T.Buffer((4,), "float16x2"), B: T.Buffer((4,), "float32x4"), C: T.Buffer((4,), "int32x4")):
    A[0] = T.Broadcast(T.float16(1), 2)
    B[0] = B[1] + B[2]
    C[0] = T.Ramp(0, 1, 4) * T.Broadcast(2, 4)


@T.prim_func
def e_shuffle(A: T.Buffer((4,), "float32x4"), B: T.Buffer((4,), "float32x2")):
    B[0] = T.Shuffle([A[0]], [0, 2])


@T.prim_func
def e_uint_arith(A: T.Buffer((4,), "uint32"), a: T.uint32):
    A[0] = a + T.uint32(1)
    A[1] = a * T.uint32(3) // T.uint32(2)
    A[2] = a % T.uint32(7)


@T.prim_func
def e_infinity(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
    A[0] = T.infinity("float32")
    A[1] = T.max_value("float32")
    B[0] = T.min_value("int32")
    A[2] = T.min_value("float32")


@T.prim_func(check_well_formed=False)
def e_free_vars(A: T.Buffer((16,), "int32")):
    n = T.int32()
    p = T.handle("float16", "shared")
    A[0] = n + 1
    for i in range(4):
        A[i] = n
    T.evaluate(T.reinterpret("uint64", p))


@T.prim_func
def e_builtin_calls(A: T.Buffer((128,), "float32"), h: T.handle):
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.tensormap_init", T.address_of(A_map), A.data)
    n: T.let[T.int64] = T.tvm_struct_get(h, 0, 17, "int64")
    A[0] = T.Cast("float32", n)
    A[1] = T.call_intrin("float32", "tirx.exp", A[2])


@T.prim_func
def e_warp_shuffle(A: T.Buffer((32,), "float32")):
    T.device_entry()
    lane = T.lane_id([32])
    A[lane] = T.tvm_warp_shuffle(T.uint32(0xFFFFFFFF), A[lane], 0, 32, 32)


@T.prim_func
def e_math_more(A: T.Buffer((4,), "float32")):
    A[0] = T.if_then_else(T.isnan(A[1]), T.float32(0), A[1])
    A[2] = T.nearbyint(A[3])


@T.prim_func
def e_cast_value(A: T.Buffer((8,), "float32"), H: T.Buffer((8,), "float16"), I: T.Buffer((4,), "int32")):
    a: T.float16 = H[0]
    A[0] = T.cast(a, "float32")
    A[1] = T.cast(A[2], "float32")
    A[2] = T.cast(1, "float32")
    A[3] = T.cast(2.5, "float32")
    H[1] = T.cast(A[4] + A[5], "float16")
    I[0] = T.cast(I[1], "int32")
    I[1] = T.cast(I[2], dtype="int64")
    A[4] = T.cast(I[3], "float32") + T.cast(a, "float32")
    b: T.float32 = T.cast(a, "float32")
    T.evaluate(T.cast(a, "float32"))


@T.prim_func
def e_extremes(A: T.Buffer((4,), "int64"), H: T.Buffer((4,), "float16"), F: T.Buffer((2,), "float8_e4m3fnuz"), B: T.Buffer((2,), "bfloat16")):
    A[0] = T.min_value("int64")
    A[1] = T.Cast("int64", T.max_value("uint16")) + T.Cast("int64", T.min_value("int8"))
    H[0] = T.infinity("float16")
    H[1] = T.max_value("float16")
    F[0] = T.min_value("float8_e4m3fnuz")
    F[1] = T.max_value("float8_e4m3fnuz")
    B[0] = T.min_value("bfloat16")


@T.prim_func
def e_math_hyperbolic(A: T.Buffer((8,), "float32"), x: T.float32):
    A[0] = T.asinh(x) + T.acosh(x) + T.atanh(x)
    A[1] = T.atan2(x, T.float32(2))
    A[2] = T.atan2(x, 2) + T.fmod(x, 1) + T.pow(x, 2)


@T.prim_func
def e_misc_builtins(A: T.Buffer((16,), "int32"), F: T.Buffer((4,), "float32"), V: T.Buffer((4,), "int8x4"), W: T.Buffer((4,), "int8x2"), X: T.Buffer((4,), "int8x8"), M: T.Buffer((4,), "boolx4"), a: T.int32, b: T.int32, x: T.float32, p: T.handle, l: T.handle):
    F[0] = T.call_llvm_intrin("float32", "llvm.sqrt", x)
    F[1] = T.call_llvm_pure_intrin("float32", "llvm.fabs", x)
    A[0] = T.Cast("int32", T.isnullptr(p))
    A[1] = T.q_multiply_shift(a, b, 31, 1)
    A[2] = T.q_multiply_shift_per_axis(a, b, a, b, 31, False, True)
    A[3] = T.vscale() + T.undef()
    A[4] = T.ignore_loop_partition(a < b)
    T.start_profile_intrinsic(3)
    T.end_profile_intrinsic(3)
    W[0] = T.vectorlow("int8x2", V[0])
    W[1] = T.vectorhigh("int8x2", V[0])
    X[0] = T.vectorcombine("int8x8", V[0], V[1])
    M[0] = T.get_active_lane_mask("boolx4", a, b)
    T.evaluate(T.anylist_getitem(l, 0))
    T.evaluate(T.anylist_resetitem(l, 0))
    T.evaluate(T.anylist_setitem_call_packed(l, 0, "f", a))
    T.evaluate(T.anylist_setitem_call_cpacked(l, 0, "f", a))


@T.prim_func
def e_call_node(A: T.Buffer((4,), "float32"), x: T.float32, p: T.handle):
    A[0] = T.Call("tirx.call_extern", ["foo", x], attrs={"k": 1, "a": "s"}, ret_ty="float32")
    T.evaluate(T.Call("tirx.cuda.cta_sync", [], attrs={"k": 1}, ret_ty="void"))
    T.evaluate(T.Call("tirx.reinterpret", [p], attrs={"k": 1}, ret_ty=T.handle("float16", "shared").ty))
    A[1] = T.Call("prim.if_then_else", [x > 0, x, x], attrs={"k": T.float32(1)}, ret_ty="float32")
    A[2] = T.Call("tirx.exp", [x], ret_ty="float32") + T.call_intrin("float32", "prim.if_then_else", x > 0, x, x)


@T.prim_func
def e_attr_objects(A: T.Buffer((8,), "int32")):
    T.attr(T.Range(2, 6), "range", 1)
    T.attr(T.index_map(lambda i, j: (j, i), inverse_index_map=lambda a, b: (b, a)), "transpose", 1)
    T.attr(T.index_map(lambda i: i + 1), "shift", 1)
    T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.float32(0)]), "max", 1)
    T.attr(T.comm_reducer(lambda x0, x1, y0, y1: (x0 + y0, x1 * y1), [0, 1]), "sum_prod", 1)
    for i in T.serial(8, annotations={"map": T.index_map(lambda i: (i // 4, i % 4)), "range": T.Range(0, 8)}):
        A[i] = 1


@T.prim_func
def e_dp4a(A: T.Buffer((4,), "int32"), V: T.Buffer((4,), "int8x4"), a: T.int32):
    A[0] = T.dp4a(V[0], V[1], a)
    A[1] = T.dp4a(V[2], V[3])


@T.prim_func
def e_filter_selector(A: T.Buffer((128,), "int32")):
    T.device_entry()
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    if T.filter(lane, lane * lane < 4):
        A[lane] = T.selector(warp, warp == 0)


# ---------------------------------------------------------------------------
# k_: T.cuda intrinsics
# ---------------------------------------------------------------------------

@T.prim_func
def k_sync(A: T.Buffer((128,), "float32")):
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([128])
    A[tx] = T.float32(0)
    T.cuda.cta_sync()
    T.cuda.warp_sync()
    T.cuda.thread_fence()
    T.cuda.warpgroup_sync(1)
    T.cuda.cluster_sync()


@T.prim_func
def k_elect_sync(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    if T.cuda.elect_sync():
        A[warp] = T.uint32(1)
    A[0] = T.cuda.elect_sync()


@T.prim_func
def k_shuffle(A: T.Buffer((32,), "float32")):
    T.device_entry()
    lane = T.lane_id([32])
    x: T.float32 = A[lane]
    x = x + T.cuda.__shfl_xor_sync(T.uint32(0xFFFFFFFF), x, 16, 32)
    x = x + T.cuda.__shfl_down_sync(T.uint32(0xFFFFFFFF), x, 8, 32)
    x = x + T.cuda.__shfl_up_sync(T.uint32(0xFFFFFFFF), x, 4, 32)
    A[lane] = T.cuda.__shfl_sync(T.cuda.__activemask(), x, 0, 32)


@T.prim_func
def k_warp_reduce(A: T.Buffer((32,), "float32")):
    T.device_entry()
    lane = T.lane_id([32])
    A[lane] = T.cuda.warp_sum(A[lane])
    A[0] = T.cuda.warp_max(A[lane], 16)
    A[1] = T.cuda.warp_reduce(A[lane], "min")


@T.prim_func
def k_cta_reduce(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    scratch = T.alloc_shared((4,), "float32")
    A[tx] = T.cuda.cta_sum(A[tx], 4, scratch.data)


@T.prim_func
def k_atomics(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    old: T.int32 = T.cuda.atomic_add(A.ptr_to([0]), 1)
    B[1] = T.cuda.atomic_cas(B.ptr_to([0]), T.uint32(0), T.uint32(1))
    A[1] = old


@T.prim_func
def k_func_call(A: T.Buffer((4,), "uint64")):
    T.device_entry()
    tx = T.thread_id([32])
    T.cuda.func_call("my_func", T.address_of(A[0]), source_code="\n__device__ void my_func(uint64_t* p) {\n    *p = 42;\n}\n")


@T.prim_func
def k_func_call_ret(A: T.Buffer((4,), "float32")):
    T.device_entry()
    tx = T.thread_id([32])
    A[0] = T.cuda.func_call("twice", A[1], source_code="__device__ float twice(float x) { return 2 * x; }", return_type="float32")


@T.prim_func
def k_ldg(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.device_entry()
    tx = T.thread_id([8])
    B[tx] = T.cuda.ldg(A.ptr_to([tx]), "float32")


@T.prim_func
def k_conversions(A: T.Buffer((4,), "float16"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    B[0] = T.cuda.half2float(A[0])
    C[0] = T.cuda.float_as_uint(B[1])
    B[2] = T.cuda.uint_as_float(C[1])
    B[3] = T.cuda.fdividef(B[0], B[1])


@T.prim_func
def k_mbarrier_wait(A: T.Buffer((4,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    bar = T.alloc_shared((1,), "uint64", layout=None)
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    A[0] = T.float32(1)


@T.prim_func
def k_tmem_addr(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([128])
    for ni in range(2):
        A[ni] = T.cuda.get_tmem_addr(T.uint32(400), 1, ni * 64)


@T.prim_func
def k_cvta(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([128])
    S = T.alloc_shared((64,), "float16")
    A[0] = T.cuda.cvta_generic_to_shared(S.data)


@T.prim_func
def k_nano_sleep_clock(A: T.Buffer((4,), "uint64")):
    T.device_entry()
    tx = T.thread_id([32])
    T.cuda.nano_sleep(100)
    A[0] = T.cuda.clock64()


@T.prim_func
def k_ballot(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    lane = T.lane_id([32])
    A[0] = T.cuda.ballot_sync(T.uint32(0xFFFFFFFF), lane < 16)
    A[1] = T.cuda.any_sync(T.uint32(0xFFFFFFFF), lane == 3)


@T.prim_func
def k_wgmma_desc(A: T.Buffer((4,), "uint64")):
    T.device_entry()
    tx = T.thread_id([128])
    S = T.alloc_shared((64, 64), "float16")
    desc: T.uint64
    T.cuda.wgmma.encode_matrix_descriptor(T.address_of(desc), S.data, 1, 64, 3)
    T.cuda.wgmma.noop_barrier(desc)
    A[0] = desc


@T.prim_func
def k_tcgen05_idesc(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([128])
    idesc: T.uint32
    T.cuda.tcgen05.encode_instr_descriptor(T.address_of(idesc), d_dtype="float32", a_dtype="float16", b_dtype="float16", M=128, N=256, K=16, trans_a=False, trans_b=False)
    A[0] = idesc


@T.prim_func
def k_wait_until(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    v: T.uint32
    T.cuda.wait_until(v, A.ptr_to([0]), lambda x: x == T.uint32(1))
    A[1] = v


@T.prim_func
def k_iket(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    T.cuda.iket.mark("m")
    T.cuda.iket.mark("m", tx)
    A[0] = T.cuda.iket.range_start("r")
    T.cuda.iket.range_end(A[0])
    T.cuda.iket.range_push("p", 3)
    T.cuda.iket.range_pop()
    A[1] = T.cuda.iket.sentinel_token("s")
    A[2] = T.cuda.iket.official_event(3)
    A[3] = T.cuda.iket.official_event(3, "src", tx)


@T.prim_func
def k_printf(n: T.int32):
    T.device_entry()
    tx = T.thread_id([32])
    T.cuda.printf("n=%d tx=%d", n, tx)


@T.prim_func
def k_reduce_wrappers(A: T.Buffer((128,), "float32")):
    T.device_entry()
    tx = T.thread_id([128])
    scratch = T.alloc_shared((4,), "float32")
    A[0] = T.cuda.warp_sum(A[tx]) + T.cuda.warp_max(A[tx], 16) + T.cuda.warp_min(A[tx], width=8)
    A[1] = T.cuda.cta_sum(A[tx], 4, scratch.data) + T.cuda.cta_max(A[tx], 4, scratch.data) + T.cuda.cta_min(A[tx], 4, scratch.data)


@T.prim_func
def k_packed_pairs(A: T.Buffer((8,), "float32"), U: T.Buffer((8,), "uint32"), W: T.Buffer((8,), "uint64"), I: T.Buffer((2,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    bar = T.alloc_shared((2,), "uint64")
    W[0] = T.cuda.fmul2_rn(T.cuda.make_float2(A[0], A[1]), T.cuda.fadd2_rn(W[1], W[2]))
    A[2] = T.cuda.float2_x(W[0]) + T.cuda.float2_y(W[0])
    U[0] = T.cuda.hmin2(U[1], U[2]) ^ T.cuda.hmax2(U[1], U[2])
    U[3] = T.cuda.float22bfloat162_rn(A[0], A[1]) + T.cuda.float22bfloat162_rn_from_float2(W[3])
    W[4] = T.cuda.bfloat1622float2(U[4])
    U[5] = T.cuda.fp8x4_e4m3_from_float4(A[0], A[1], A[2], A[3]) + T.cuda.smem_addr_from_uint64(W[5])
    U[6] = T.cuda.sm100_2sm_leader_smem_addr(T.address_of(bar[1]))
    I[0] = T.cuda.mov_sreg(32, "%smid")
    T.cuda.mbarrier_wait_acquire_cluster(T.address_of(bar[0]), 0)


@T.prim_func
def k_mma_helpers(A: T.Buffer((256,), "float32"), U: T.Buffer((8,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    C = T.alloc_local((8,), "float32")
    desc = T.alloc_local((1,), "uint32")
    T.evaluate(T.cuda.mma_fill("float32", 8, C.data, 0))
    T.evaluate(T.cuda.mma_store("float32", 16, 16, A.data, C.data, 0, 16))
    T.cuda.float22half2(T.address_of(U[0]), A[0])
    T.cuda.half8tofloat8(A.data, U.data)
    T.cuda.float8tohalf8(A.data, U.data)
    T.cuda.runtime_instr_desc(T.address_of(desc[0]), U[1])


@T.prim_func
def k_tcgen05_idesc_block_scaled(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    tx = T.thread_id([128])
    desc = T.alloc_local((1,), "uint32")
    T.cuda.tcgen05.encode_instr_descriptor_block_scaled(T.address_of(desc[0]), d_dtype="float32", a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", sfa_dtype="float8_e8m0fnu", sfb_dtype="float8_e8m0fnu", sfa_tmem_addr=A[0], sfb_tmem_addr=A[1], M=128, N=128, K=32, trans_a=False, trans_b=False)
    A[2] = desc[0]


@T.prim_func
def k_timers(P: T.Buffer((64,), "uint64"), tag: T.Buffer((2,), "int32"), off: T.Buffer((2,), "int32")):
    T.device_entry()
    tx = T.thread_id([32])
    T.cuda.timer_init(P.data, tag.data, off.data, 1, 0)
    T.cuda.timer_start(_Event.MAIN_LOOP, P.data, tag.data, off.data, 1, tx == 0)
    T.cuda.timer_end(_Event.MAIN_LOOP, P.data, tag.data, off.data, 1, tx == 0)
    T.cuda.timer_finalize(P.data, tag.data, off.data, 1, tx == 0)


@T.prim_func
def k_nvshmem(S: T.Buffer((4,), "uint64"), D: T.Buffer((1024,), "uint8")):
    T.device_entry()
    tx = T.thread_id([128])
    pe = T.nvshmem.my_pe()
    peer = (pe + 1) % T.nvshmem.n_pes()
    T.nvshmem.putmem_nbi(D.data, T.address_of(D[512]), 64, peer)
    T.nvshmem.getmem_nbi(T.address_of(D[64]), D.data, 64, peer)
    T.nvshmem.putmem_nbi.warp(D.data, D.data, 256, peer)
    T.nvshmem.getmem_nbi.warp(D.data, D.data, 256, peer)
    T.nvshmem.putmem_nbi.block(D.data, D.data, 512, peer)
    T.nvshmem.getmem_nbi.block(D.data, D.data, 512, peer)
    T.nvshmem.putmem_signal_nbi(D.data, D.data, 64, S.data, T.uint64(1), "set", peer)
    T.nvshmem.putmem_signal_nbi.warp(D.data, D.data, 64, T.address_of(S[1]), T.uint64(1), "add", peer)
    T.nvshmem.putmem_signal_nbi.block(D.data, D.data, 64, T.address_of(S[2]), T.uint64(2), "add", peer)
    T.nvshmem.signal_op(T.address_of(S[3]), T.uint64(1), "add", peer)
    T.nvshmem.fence()
    T.nvshmem.quiet()
    T.nvshmem.wait_until(S.data, "ge", T.uint64(1))
    T.nvshmem.wait_until(T.address_of(S[3]), "ne", T.uint64(0), "uint64_t")
    T.nvshmem.barrier_all()


# ---------------------------------------------------------------------------
# x_: T.ptx calls
# ---------------------------------------------------------------------------

@T.prim_func
def x_ld_st(A: T.Buffer((4,), "uint32"), B: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    val: T.uint32
    T.ptx.ld.global_.acquire.gpu.b32(val, A.ptr_to([0]))
    T.ptx.st.release.gpu.global_.b32(B.ptr_to([0]), val)


@T.prim_func
def x_ld_string_form(A: T.Buffer((4,), "uint32"), B: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    val: T.uint32
    T.ptx["ld.acquire.gpu.global.b32"](val, A.ptr_to([0]))
    T.ptx["st.relaxed.cta.global.b32"](B.ptr_to([1]), val)


@T.prim_func
def x_ld_qualifiers(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    f: T.float32
    T.ptx.ld.global_.nc.L1__no_allocate.f32(f, A.ptr_to([tx % 8]))
    T.ptx.ld.global_.cg.L2__128B.f32(f, A.ptr_to([1]))
    T.ptx.st.global_.cs.f32(B.ptr_to([0]), f)


@T.prim_func
def x_ld_vector(A: T.Buffer((8,), "uint32"), B: T.Buffer((8,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    r = T.alloc_local((4,), "uint32")
    T.ptx.ld.global_.v4.u32(r[0], r[1], r[2], r[3], A.ptr_to([0]))
    T.ptx.st.global_.v2.b32(B.ptr_to([0]), r[0], r[1])


@T.prim_func
def x_ld_shared(A: T.Buffer((8,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    smem = T.alloc_shared((4,), "uint32")
    v: T.uint32
    T.ptx.st.shared__cta.b32(smem.ptr_to([0]), T.uint32(7))
    T.ptx.ld.shared__cta.b32(v, smem.ptr_to([0]))
    A[tx % 8] = v


@T.prim_func
def x_pred_keep(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    value: T.float32 = T.float32(0)
    pred: T.bool = tx < 16
    T.ptx.ld.global_.f32(value, A.ptr_to([0]), pred=pred, preserve_dst=True)
    T.ptx.ex2.approx.ftz.f32(value, value, pred=pred, preserve_dst=True)
    T.ptx.red.relaxed.gpu.global_.add.f32(A.ptr_to([1]), value, pred=tx == 0)


@T.prim_func
def x_logic_shift(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    d: T.uint32
    p: T.uint32
    q: T.uint32
    s: T.int32
    T.ptx.and_.b32(d, A[0], A[1])
    T.ptx.or_.b32(d, d, A[2])
    T.ptx.xor.b32(d, d, A[3])
    T.ptx.and_.pred(p, T.ptx.pred(q), T.ptx.pred(d))
    T.ptx.not_.pred(p, T.ptx.pred(p))
    T.ptx.not_.b32(d, d)
    T.ptx.cnot.b32(d, d)
    T.ptx.lop3.b32(d, d, d, d, 0x80)
    T.ptx.lop3.or_.b32(d, p, d, d, d, 0xFE, T.ptx.pred(q))
    T.ptx.shf.l.clamp.b32(d, d, d, T.uint32(4))
    T.ptx.shl.b32(d, d, T.uint32(2))
    T.ptx.shr.s32(s, s, T.uint32(1))
    A[tx % 4] = d + p + q + T.uint32(s)


@T.prim_func
def x_arith(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    f: T.float32
    si: T.int32
    sw: T.int64
    T.ptx.add.s32(si, B[0], B[1])
    T.ptx.add.rn.f32(f, A[0], A[1])
    T.ptx.mul.lo.s32(si, si, B[2])
    T.ptx.mul.wide.s32(sw, si, B[3])
    T.ptx.mad.rn.f32(f, A[0], A[1], f)
    T.ptx.fma.rn.f32(f, f, f, f)
    T.ptx.div.approx.ftz.f32(f, f, A[3])
    T.ptx.sqrt.approx.f32(f, f)
    T.ptx.tanh.approx.f32(f, f)
    T.ptx.min.s32(si, si, B[0])
    T.ptx.max.f32(f, f, A[2])
    A[0] = f
    B[0] = si + T.Cast("int32", sw)


@T.prim_func
def x_setp_selp(A: T.Buffer((4,), "uint32"), B: T.Buffer((4,), "int32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    p: T.uint32
    q: T.uint32
    d: T.uint32
    T.ptx.setp.lt.s32(p, B[0], B[1])
    T.ptx.setp.lt.s32(p, q, B[0], B[1])
    T.ptx.setp.lt.and_.s32(p, B[0], B[1], T.ptx.pred(q))
    T.ptx.selp.b32(d, d, p, T.ptx.pred(q))
    A[tx % 4] = d


@T.prim_func
def x_mov_cvt(A: T.Buffer((4,), "uint32"), B: T.Buffer((2,), "uint64")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    packed: T.uint64
    lo: T.uint32
    hi: T.uint32
    T.ptx.mov.b64(packed, A[0], A[1])
    T.ptx.mov.b64(lo, hi, packed)
    T.ptx.mov.b32(lo, A[2])
    smem = T.alloc_shared((4,), "uint32")
    T.ptx.cvta.to.shared.u64(packed, smem.data)
    B[0] = packed
    A[0] = lo + hi


@T.prim_func
def x_warp_vote(A: T.Buffer((8,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    d: T.uint32
    p: T.uint32
    m: T.uint32
    T.ptx.vote_sync.ballot.b32(m, T.ptx.pred(d), T.uint32(0xFFFFFFFF))
    T.ptx.activemask.b32(m)
    T.ptx.elect_sync(d, p, T.uint32(0xFFFFFFFF))
    T.ptx.redux_sync.add.u32(d, d, T.uint32(0xFFFFFFFF))
    T.ptx.shfl_sync.idx.b32(d, d, T.uint32(0), T.uint32(31), T.uint32(0xFFFFFFFF))
    T.ptx.atom.global_.add.u32(d, A.ptr_to([0]), T.uint32(1))
    T.ptx.atom.global_.cas.b32(d, A.ptr_to([1]), d, d)
    A[tx % 8] = d + p + m


@T.prim_func
def x_bar_fence(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    T.ptx.bar.sync(T.uint32(0))
    T.ptx.bar.sync(T.uint32(1), T.uint32(64))
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.fence.mbarrier_init.release.cluster()
    T.ptx.fence.acq_rel.gpu()
    A[0] = T.uint32(1)


@T.prim_func
def x_setmaxnreg(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([2])
    tid = T.thread_id_in_wg([128])
    if wg == 0:
        T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
    else:
        T.ptx["setmaxnreg.inc.sync.aligned.u32"](232)
    A[0] = T.uint32(1)


@T.prim_func
def x_mbarrier(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    bar = T.alloc_shared((2,), "uint64")
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([1]), T.uint32(128))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    T.ptx.mbarrier.arrive.shared.b64(bar.ptr_to([1]))
    T.ptx.mbarrier.arrive.shared.b64(bar.ptr_to([1]), T.uint32(2))
    T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(4096))
    T.ptx.mbarrier.arrive.release.cta.shared.b64(bar.ptr_to([1]), pred=tx == 0)
    ok: T.uint32
    T.ptx.mbarrier.try_wait.parity.shared__cta.b64(ok, bar.ptr_to([0]), T.uint32(0))
    A[0] = ok


@T.prim_func
def x_cp_async(A: T.Buffer((256,), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    S = T.alloc_shared((256,), "float16")
    T.ptx.cp.async_.ca.shared.global_(S.ptr_to([tx * 8]), A.ptr_to([tx * 8]), 16)
    T.ptx.cp.async_.cg.shared.global_(S.ptr_to([tx * 8]), A.ptr_to([tx * 8]), 16)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)


@T.prim_func
def x_cp_async_bulk(A: T.Buffer((256,), "float16"), B: T.Buffer((256,), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_shared((256,), "float16")
    bar = T.alloc_shared((1,), "uint64", layout=None)
    T.ptx["cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"](S.data, A.data, T.uint32(512), bar.ptr_to([0]))
    T.ptx["cp.async.bulk.global.shared::cta.bulk_group"](B.data, S.data, T.uint32(512))
    T.ptx.cp.async_.bulk.commit_group()
    T.ptx.cp.async_.bulk.wait_group(0)


@T.prim_func
def x_tma_load_store(A_map: T.TensorMap(), B_map: T.TensorMap()):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_shared((64, 64), "float16", align=1024)
    bar = T.alloc_shared((1,), "uint64", layout=None)
    T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](S.data, T.address_of(A_map), 0, 64, bar.ptr_to([0]))
    T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"](T.address_of(B_map), 0, 64, S.data)
    T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"](T.address_of(B_map), 64, 0, S.data)
    T.ptx["cp.async.bulk.prefetch.tensor.2d.L2.global.tile"](T.address_of(A_map), 0, 0)
    T.ptx.prefetch.tensormap(T.address_of(A_map))


@T.prim_func
def x_ldmatrix_stmatrix(A: T.Buffer((16, 16), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    S = T.alloc_shared((16, 16), "float16")
    R = T.alloc_local((8,), "float16")
    W = R.view("uint32")
    T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(W[0], W[1], W[2], W[3], S.ptr_to([tx % 16, tx // 16 * 8]))
    T.ptx["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"](W[0], W[1], S.ptr_to([tx % 16, 0]))
    T.ptx.stmatrix.sync.aligned.m8n8.x4.shared.b16(S.ptr_to([tx % 16, tx // 16 * 8]), W[0], W[1], W[2], W[3])
    T.ptx["stmatrix.sync.aligned.m8n8.x1.trans.shared.b16"](S.ptr_to([tx % 8, 0]), W[0])


@T.prim_func
def x_mma(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    a = T.alloc_local((4,), "uint32")
    b = T.alloc_local((2,), "uint32")
    c = T.alloc_local((4,), "float32")
    T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32(c[0], c[1], c[2], c[3], a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3])
    A[0] = c[0]


@T.prim_func
def x_wgmma(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    acc = T.alloc_local((4,), "float32")
    descA: T.uint64
    descB: T.uint64
    T.ptx.wgmma.fence.sync.aligned()
    T.ptx.wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16(acc[0], acc[1], acc[2], acc[3], descA, descB, T.bool(True), 1, 1, 0, 0)
    T.ptx.wgmma.commit_group.sync.aligned()
    T.ptx.wgmma.wait_group.sync.aligned(0)
    A[0] = acc[0]


@T.prim_func
def x_elect_sync(A: T.Buffer((4,), "uint32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    d: T.uint32
    p: T.uint32
    T.ptx.elect_sync(d, p, T.uint32(0xFFFFFFFF))
    T.ptx["elect_sync"](d, p, T.uint32(0xFFFFFFFF))
    A[0] = d + p


@T.prim_func
def x_tcgen05(A: T.Buffer((128,), "float32")):
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    tx = T.thread_id([128])
    tmem_addr = T.alloc_shared((1,), "uint32", layout=None)
    bar = T.alloc_shared((1,), "uint64", layout=None)
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(tmem_addr.ptr_to([0]), T.uint32(64))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    r: T.uint32
    T.ptx["tcgen05.ld.sync.aligned.32x32b.x1.b32"](r, tmem_addr[0])
    T.ptx.tcgen05.wait__ld.sync.aligned()
    T.ptx["tcgen05.st.sync.aligned.32x32b.x1.b32"](tmem_addr[0], r)
    T.ptx.tcgen05.wait__st.sync.aligned()
    desc: T.uint64
    idesc: T.uint32
    T.ptx["tcgen05.mma.cta_group::1.kind::f16"](tmem_addr[0], desc, desc, idesc, 0, 0, 0, 0, T.ptx.pred(r))
    T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(bar.ptr_to([0]))
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(64))
    A[tx] = T.reinterpret("float32", r)


@T.prim_func
def x_mapa_cluster(A: T.Buffer((4,), "uint64")):
    T.device_entry()
    T.cluster_id([1])
    cb = T.cta_id_in_cluster([2])
    tx = T.thread_id([128])
    bar = T.alloc_shared((1,), "uint64", layout=None)
    remote: T.uint64
    T.ptx.mapa.u64(remote, T.reinterpret("uint64", bar.ptr_to([0])), T.uint32(1) - cb)
    A[0] = remote


@T.prim_func
def x_sink_addr(A: T.Buffer((64,), "int32"), B: T.Buffer((8,), "int32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    r = T.alloc_local((8,), "int32")
    T.ptx["ld.global.nc.L1::no_allocate.L2::evict_first.L2::256B.v8.s32"](r[0], T.ptx.SINK, r[2], T.ptx.SINK, r[4], r[5], r[6], T.ptx.SINK, A.ptr_to([0]))
    S = T.alloc_shared((64,), "int32")
    v: T.int32
    T.ptx.ld.shared__cta.s32(v, T.ptx.addr(S.ptr_to([0]), 16))
    B[0] = r[0] + v


@T.prim_func
def x_misc_families(A: T.Buffer((8,), "uint32"), F: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    d: T.uint32
    p: T.uint32
    f: T.float32
    T.ptx.prmt.b32(d, A[0], A[1], A[2])
    T.ptx.popc.b32(d, A[3])
    T.ptx.testp.notanumber.f32(p, F[0])
    T.ptx.cvt.rn.f32.s32(f, T.int32(3))
    T.ptx.neg.f32(f, f)
    T.ptx.abs.ftz.f32(f, f)
    T.ptx.ex2.approx.ftz.f32(f, f)
    T.ptx.isspacep.global_(p, A.ptr_to([4]))
    T.ptx.prefetch.global_.L2(A.ptr_to([0]))
    T.ptx.red.relaxed.gpu.global_.add.u32(A.ptr_to([1]), T.uint32(1))
    T.ptx.barrier.cluster.arrive()
    T.ptx.barrier.cluster.wait()
    A[tx % 8] = d + p
    F[0] = f


# ---------------------------------------------------------------------------
# t_: tile primitives
# ---------------------------------------------------------------------------

@T.prim_func
def t_copy_scopes(A: T.Buffer((128, 64), "float16"), B: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_shared((128, 64), "float16")
    T.cta.copy(S, A)
    T.warp.copy(S[0:32, 0:64], A[0:32, 0:64])
    T.wg.copy(B[0:64, 0:64], S[0:64, 0:64])
    T.tile.copy(B[0, 0:64], S[0, 0:64])


@T.prim_func
def t_copy_cluster(A: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cluster_id([1])
    T.cta_id_in_cluster([2])
    tx = T.thread_id([128])
    S = T.alloc_shared((128, 64), "float16")
    T.cluster.copy(S, A)


@T.prim_func
def t_fill_zero(A: T.Buffer((128,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_shared((128,), "float32")
    T.cta.fill(S, T.float32(0))
    T.cta.fill(S[0:64], 1.5)
    T.cta.zero(S[64:128])
    T.cta.memset(A[0:128], T.float32(1.25))


@T.prim_func
def t_reduce_axes(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    S = T.alloc_shared((16, 32), "float32")
    R = T.alloc_shared((16,), "float32")
    T.warp.sum(R, S)
    T.warp.max(R, S, axes=-1, accum=True)
    T.warp.min(R[0:16], S[0:16, 0:32], axes=(1,))
    T.warp.sum(B, A, axes=[-1], accum=False)


@T.prim_func
def t_elementwise(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    T.warp.add(C, A, B)
    T.warp.mul(C, A, T.float32(2))
    T.warp.sub(C[0:32], A[0:32], B[0:32])
    T.warp.fdiv(C, C, B)
    T.warp.maximum(C, A, B)
    T.warp.minimum(C, A, T.float32(0))
    T.warp.fma(C, A, B, T.float32(1))


@T.prim_func
def t_unary(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([1])
    T.lane_id([32])
    T.warp.exp2(A[0:32])
    T.warp.sqrt(A[32:64])
    T.warp.reciprocal(A[64:96])
    T.warp.exp(B[0:32], A[0:32])
    T.warp.exp(B[32:64], A[32:64], None, T.float32(0.5))
    T.warp.log2(B[64:96], A[64:96])
    T.warp.silu(B[96:128], A[96:128])


@T.prim_func
def t_cast(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([32])
    T.warp.cast(B, A)
    T.warp.cast(B[0:32], A[32:64])


@T.prim_func
def t_dispatch_config(A: T.Buffer((16,), "float32")):
    S = T.alloc_buffer((16,), "float32")
    T.tile.memset(S[0:16], T.float32(1.25), dispatch="v10", bar=7, foo=42)
    T.tile.copy(A, S, dispatch="vec", vec_len=4, cache_hint="evict_last")


@T.prim_func
def t_workspace(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.device_entry()
    smem = T.alloc_shared((10,), "float32")
    red = T.alloc_shared((4,), "float32")
    T.tile.add(B, A, T.float32(1), workspace={"smem": smem, "red": red})
    T.tile.add(B, A, T.float32(1), schedule="A")


@T.prim_func
def t_copy_async_tma(A: T.Buffer((128, 64), "float16"), B: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    S = T.alloc_shared((128, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(128, 64):(64, 1)])))
    bar = T.alloc_shared((1,), "uint64", layout=None)
    T.tile.copy_async(S, A, dispatch="tma", mbar=bar.ptr_to([0]), cta_group=2)
    T.wg.copy_async(B[0:64, 0:64], S[0:64, 0:64], dispatch="tma_auto")


@T.prim_func
def t_gemm(A: T.Buffer((128, 32), "float16"), B: T.Buffer((32, 64), "float16"), C: T.Buffer((128, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.warp_id([4])
    T.lane_id([32])
    A_smem = T.alloc_shared((128, 32), "float16")
    B_smem = T.alloc_shared((32, 64), "float16")
    C_local = T.alloc_local((128, 64))
    T.cta.copy(A_smem, A)
    T.cta.copy(B_smem, B)
    T.cta.gemm(C_local, A_smem, B_smem, C_local)
    T.cta.gemm(C_local, A_smem, B_smem, C_local, True, False, T.float32(2), T.float32(1))
    T.cta.copy(C, C_local)


@T.prim_func
def t_gemm_async(A: T.Buffer((128, 64), "float16"), B: T.Buffer((256, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([1])
    tid = T.thread_id_in_wg([128])
    A_smem = T.alloc_shared((128, 64), "float16")
    B_smem = T.alloc_shared((256, 64), "float16")
    tmem = T.decl_buffer((128, 256), "float32", scope="tmem", allocated_addr=0, layout=T.TileLayout(T.S[(128, 256):(1 @ TLane, 1 @ TCol)]))
    T.tile.gemm_async(tmem, A_smem, B_smem, accum=False, dispatch="tcgen05", cta_group=1)
    T.tile.gemm_async(tmem[0:128, 0:256], A_smem[0:128, 0:64], B_smem[0:256, 0:64], transA=False, transB=True, accum=True)


@T.prim_func
def t_gemm_async_wg(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16"), C: T.Buffer((64, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([1])
    tid = T.thread_id_in_wg([128])
    A_smem = T.alloc_shared((64, 64), "float16")
    B_smem = T.alloc_shared((64, 64), "float16")
    acc = T.alloc_local((32,), "float32")
    acc_v = acc.view(64, 64, layout=T.TileLayout(T.S[(4, 2, 8, 8, 4, 2):(1 @ Axis.wid_in_wg, 2, 4 @ Axis.laneid, 4, 1 @ Axis.laneid, 1)]))
    T.wg.gemm_async(acc_v, A_smem, B_smem, accum=True)
    T.wg.copy(C, acc_v)


@T.prim_func
def t_select_lambda():
    T.device_entry()
    A = T.alloc_buffer((10, 10))
    B = T.alloc_buffer((10, 10))
    T.tile.select(B, A, 1.0, lambda i, j: i < j)


@T.prim_func
def t_permute_layout(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    S1 = T.alloc_shared((32, 32), "float16")
    S2 = T.alloc_shared((32, 32), "float16", layout=T.ComposeLayout(2, 3, 3, T.TileLayout(T.S[(32, 32):(32, 1)])))
    T.warp.permute_layout(S2, S1)


@T.prim_func
def t_signature_keywords(A: T.Buffer((64,), "float32"), H: T.Buffer((64,), "float16"), S: T.Buffer((16, 32), "float32"), G: T.Buffer((64, 64), "float16"), D: T.Buffer((64, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    R = T.alloc_shared((16,), "float32")
    T.cta.sum(R, S, -1)
    T.cta.sum(R, S, axes=1)
    T.cta.max(R, S, (0, 1), True)
    T.cta.min(R, S, accum=True)
    T.cta.gemm(D, G, G, D, transpose_B=True)
    T.cta.gemm(D, G, G, D, alpha=2, beta=1.0)
    T.cta.exp(A, A, scale=0.5)
    T.cta.exp2(A, scale=2)
    T.cta.log2(A, bias=1.0)
    T.cta.sqrt(A, A, A, 0.5)
    T.cta.fill(A, 1)
    T.cta.fma(A, A, 2.0, 1)
    T.cta.add(A, 2, A)
    T.cta.copy(H, A, None, "vec")
    T.cta.memset(A, value=0.0, dispatch="v", workspace={"w": H})
    T.cta.zero(A)
    T.cta.reciprocal(A[0:32])


@T.prim_func
def t_gemm_async_scaled(A: T.Buffer((128, 64), "float8_e4m3fn"), B: T.Buffer((128, 64), "float8_e4m3fn")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_smem = T.alloc_shared((128, 64), "float8_e4m3fn")
    B_smem = T.alloc_shared((128, 64), "float8_e4m3fn")
    SFA = T.alloc_shared((128, 2), "float8_e8m0fnu")
    SFB = T.alloc_shared((128, 2), "float8_e8m0fnu")
    tmem = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=0, layout=T.TileLayout(T.S[(128, 128):(1 @ TLane, 1 @ TCol)]))
    T.tile.gemm_async(tmem, A_smem, B_smem, SFA, SFB, transB=True, accum=True)
    T.tile.gemm_async(tmem, A_smem, B_smem, None, None, True)


@T.prim_func
def t_in_place_printed(A: T.Buffer((64,), "float32"), S: T.Buffer((32, 32), "float16")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    T.warp.copy(A, A)
    T.warp.silu(A[0:32], A[0:32])
    T.warp.cast(A, A)
    T.warp.permute_layout(S, S)


@T.prim_func
def t_compose_ops(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32"), R: T.Buffer((16,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    T.cta.binary_reduce(A, R, A, B, "add", "sum")
    T.cta.binary_reduce(A, R, A, 2.0, "mul", "max", 1)
    T.cta.unary_reduce(A, R, B, "exp", "sum")
    T.cta.unary_reduce(A, R, B, "exp", "sum", None, 0.5, reduce_axes=(1,))
    T.cta.binary_chain(A, B, A, 1.0, "add", "mul")
    T.cta.reduce_negate(R, A, "sum")
    T.cta.reduce_negate(R, A, "max", 1, True)


# ---------------------------------------------------------------------------
# g_: kernel skeletons
# ---------------------------------------------------------------------------

@T.prim_func
def g_smem_pool(A: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    A_s = pool.alloc((128, 64), "float16", align=1024)
    red = pool.alloc((4,), "float32")
    pool.commit()
    T.cta.copy(A_s, A)
    red[0] = T.float32(0)


@T.prim_func
def g_smem_pool_mma(A: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    A_s = pool.alloc_tcgen05_mma_AB((128, 64), "float16")
    bar = MBarrier(pool, 2)
    pool.commit()
    bar.init(1)
    T.cta.copy(A_s, A)
    bar.arrive(0)
    bar.wait(0, 0)


@T.prim_func
def g_tma_pipeline(A_map: T.TensorMap(), C: T.Buffer((128, 64), "float16")):
    T.device_entry()
    bx = T.cta_id([4])
    tx = T.thread_id([128])
    S = T.alloc_shared((2, 64, 64), "float16", align=1024)
    full = T.alloc_shared((2,), "uint64", layout=None)
    phase: T.int32 = 0
    if tx == 0:
        for s in T.unroll(2):
            T.ptx.mbarrier.init.shared.b64(full.ptr_to([s]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    for k in range(8):
        stage: T.let[T.int32] = k % 2
        if tx == 0:
            T.ptx.mbarrier.arrive.expect_tx.shared.b64(full.ptr_to([stage]), T.uint32(8192))
            T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](S.ptr_to([stage, 0, 0]), T.address_of(A_map), k * 64, bx * 64, full.ptr_to([stage]))
        T.cuda.mbarrier_wait(full.ptr_to([stage]), phase)
        if stage == 1:
            phase = phase ^ 1
        T.cta.copy(C[0:64, 0:64], S[stage, 0:64, 0:64])
        T.cuda.cta_sync()


@T.prim_func
def g_ws_gemm(A_map: T.TensorMap(), B_map: T.TensorMap(), C: T.Buffer((128, 128), "float32")):
    T.device_entry()
    T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1})
    bx, by = T.cta_id([8, 8])
    wg = T.warpgroup_id([2])
    warp = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    tid = T.thread_id_in_wg([128])
    A_s = T.alloc_shared((2, 64, 64), "float16", align=1024, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 64, 64):(4096, 64, 1)])))
    B_s = T.alloc_shared((2, 128, 64), "float16", align=1024, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 128, 64):(8192, 64, 1)])))
    full = T.alloc_shared((2,), "uint64", layout=None)
    empty = T.alloc_shared((2,), "uint64", layout=None)
    acc = T.alloc_local((64,), "float32")
    phase: T.int32 = 0
    if wg == 0:
        T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
        if warp == 0:
            if T.cuda.elect_sync():
                for k in range(16):
                    st: T.let[T.int32] = k % 2
                    T.cuda.mbarrier_wait(empty.ptr_to([st]), phase ^ 1)
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(full.ptr_to([st]), T.uint32(24576))
                    T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](A_s.ptr_to([st, 0, 0]), T.address_of(A_map), k * 64, bx * 64, full.ptr_to([st]))
                    T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"](B_s.ptr_to([st, 0, 0]), T.address_of(B_map), k * 64, by * 128, full.ptr_to([st]))
                    if st == 1:
                        phase = phase ^ 1
    else:
        T.ptx.setmaxnreg.inc.sync.aligned.u32(232)
        descA: T.uint64
        descB: T.uint64
        for k in range(16):
            st: T.let[T.int32] = k % 2
            T.cuda.mbarrier_wait(full.ptr_to([st]), phase)
            T.cuda.wgmma.encode_matrix_descriptor(T.address_of(descA), A_s.ptr_to([st, 0, 0]), 1, 64, 1)
            T.cuda.wgmma.encode_matrix_descriptor(T.address_of(descB), B_s.ptr_to([st, 0, 0]), 1, 64, 1)
            T.ptx.wgmma.fence.sync.aligned()
            T.ptx.wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16(*[acc[i] for i in range(64)], descA, descB, T.bool(True), 1, 1, 0, 0)
            T.ptx.wgmma.commit_group.sync.aligned()
            T.ptx.wgmma.wait_group.sync.aligned(0)
            T.ptx.mbarrier.arrive.shared.b64(empty.ptr_to([st]))
            if st == 1:
                phase = phase ^ 1
        for i in range(64):
            C[tid, i] = acc[i]


@T.prim_func
def g_tile_gemm_pipeline(A: T.Buffer((128, 4096), "float16"), B: T.Buffer((4096, 64), "float16"), C: T.Buffer((128, 64), "float32")):
    T.device_entry()
    bx, by, bz = T.cta_id([1, 1, 1])
    warp_id = T.warp_id([4])
    lane_id = T.lane_id([32])
    A_smem = T.alloc_shared((3, 128, 32), "float16")
    B_smem = T.alloc_shared((3, 32, 64), "float16")
    C_local = T.alloc_local((128, 64))
    for i in range(2):
        T.cta.copy(A_smem[i, :, :], A[:, i * 32 : i * 32 + 32])
        T.cta.copy(B_smem[i, :, :], B[i * 32 : i * 32 + 32, :])
    for k in range(128):
        T.cta.copy(A_smem[(k + 2) % 3, :, :], A[:, (k + 2) * 32 : (k + 2) * 32 + 32])
        T.cta.copy(B_smem[(k + 2) % 3, :, :], B[(k + 2) * 32 : (k + 2) * 32 + 32, :])
        T.cta.gemm(C_local, A_smem[k % 3, :, :], B_smem[k % 3, :, :], C_local)
    T.cta.copy(C, C_local)


@T.prim_func
def g_blackwell_tmem_skeleton(A: T.Buffer((128, 64), "float16"), B: T.Buffer((128, 64), "float16"), D: T.Buffer((128, 128), "float32")):
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    tx = T.thread_id([128])
    tmem_addr = T.alloc_shared((1,), "uint32", layout=None)
    A_s = T.alloc_shared((128, 64), "float16")
    B_s = T.alloc_shared((128, 64), "float16")
    if warp == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(tmem_addr.ptr_to([0]), T.uint32(128))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    acc = T.decl_buffer((128, 128), "float32", scope="tmem", allocated_addr=tmem_addr[0], layout=T.TileLayout(T.S[(128, 128):(1 @ Axis.TLane, 1 @ Axis.TCol)]))
    T.cta.copy(A_s, A)
    T.cta.copy(B_s, B)
    regs = T.alloc_local((128,), "float32")
    T.wg.copy_async(regs.view(128, 128, layout=T.TileLayout(T.S[(128, 128):(1 @ Axis.tx, 1)])), acc)
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for i in range(128):
        D[tx, i] = regs[i]
    if warp == 0:
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(128))


@T.prim_func
def g_tmem_pool(A: T.Buffer((128, 64), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    tmem = T.TMEMPool(pool)
    acc = tmem.alloc((128, 64), "float32")
    acc2 = tmem.alloc((64, 64), "float32", layout=tmem_datapath_layout("F", 64, 64))
    pool.commit()
    tmem.commit()
    frag = T.wg_reg_tile(64)
    T.wg.copy_async(frag, acc)
    T.ptx.tcgen05.wait__ld.sync.aligned()
    A[tx, 0] = frag[tx, 0] + acc2[0, 0]
    tmem.dealloc()


@T.prim_func
def g_tmem_pool_options(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    warp = T.warp_id([4])
    smem = T.SMEMPool()
    addr = smem.alloc((1,), "uint32")
    tp = T.TMEMPool(smem, 256, cta_group=2, alloc_warp=1, dealloc_warp=2, tmem_addr=addr, sync_after_alloc=False)
    acc = tp.alloc((128, 64), "float16")
    tp.move_base_to(128)
    acc2 = tp.alloc((64, 64), "float32", cols=32)
    acc3 = tp.alloc((2, 64, 32), "float32", layout=T.TileLayout(T.S[(2, 64, 32):(64 @ TLane, 1 @ TLane, 1 @ TCol)]))
    smem.commit()
    tp.commit()
    alias = T.tmem((128, 64), "float32", allocated_addr=tp.addr)
    A[0] = T.Cast("float32", acc[0, 0]) + acc2[0, 0] + acc3[0, 0, 0] + alias[0, 0]
    tp.dealloc()


@T.prim_func
def g_pool_mma(A: T.Buffer((4,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    A_s = pool.alloc_tcgen05_mma_AB((128, 64), "float16")
    B_s = pool.alloc_tcgen05_mma_AB((2, 64, 32), "bfloat16", swizzle_mode="none", align=128)
    D_s = pool.alloc_tcgen05_mma_AB((16, 128), "float8_e4m3fn")
    tmem = T.TMEMPool(pool)
    acc = tmem.alloc_tcgen05_mma_D((128, 256), M=128, cta_group=1)
    acc_f = tmem.alloc_tcgen05_mma_D((64, 64), M=64, cta_group=1)
    acc_e = tmem.alloc_tcgen05_mma_C((64, 64), M=64, cta_group=1, ws=True)
    acc_b = tmem.alloc_tcgen05_mma_D((64, 64), M=128, cta_group=2, group=(2, 2, 16))
    acc_b3 = tmem.alloc_tcgen05_mma_D((2, 64, 16), M=128, cta_group=2)
    acc_b4 = tmem.alloc_tcgen05_mma_D((64, 2, 2, 8), M=128, cta_group=2)
    a_t = tmem.alloc_tcgen05_mma_A((128, 32), M=128, cta_group=1)
    a_b = tmem.alloc_tcgen05_mma_A((64, 32), M=128, cta_group=2)
    a_e = tmem.alloc_tcgen05_mma_A((2, 64, 16), "float16", M=64, cta_group=1, ws=True, cols=8)
    pool.commit()
    tmem.commit()
    A[0] = acc[0, 0] + acc_f[0, 0] + acc_e[0, 0] + acc_b[0, 0] + acc_b3[0, 0, 0] + acc_b4[0, 0, 0, 0] + T.Cast("float32", A_s[0, 0] + a_e[0, 0, 0]) + T.Cast("float32", B_s[0, 0, 0] + a_t[0, 0] + a_b[0, 0]) + T.Cast("float32", D_s[0, 0])
    tmem.dealloc()


@T.prim_func
def g_lang_barriers(A: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    bar = MBarrier(pool, 2)
    tb = TMABar(pool, 3)
    cb = TCGen05Bar(pool, 2)
    pool.commit()
    bar.init(1)
    tb.init(1)
    cb.init(1)
    ps = PipelineState(3, 0)
    bar.arrive(0)
    bar.arrive(1, pred=tx == 0)
    bar.arrive(1, count=4)
    bar.arrive(ps.stage, remote=1)
    bar.wait(ps.stage, ps.phase)
    tb.arrive(ps.stage, 8192)
    tb.arrive(ps.stage)
    tb.arrive(ps.stage, 8192, remote=0, pred=tx == 0)
    cb.arrive(0)
    cb.arrive(1, cta_group=2, cta_mask=3)
    cb.arrive(1, cta_group=1, cta_mask=1, pred=tx == 0)
    ps.advance()
    ps1 = PipelineState(1, 1)
    ps1.advance()
    ps2 = PipelineState(4)
    ps2.init(1)
    A[0, 0] = T.float16(0)


@T.prim_func
def g_lang_pipeline_roles(A: T.Buffer((128, 64), "float16")):
    T.device_entry()
    T.cta_id([1])
    wg = T.warpgroup_id([3])
    warp = T.warp_id_in_wg([4])
    tx = T.thread_id_in_wg([128])
    pool = T.SMEMPool()
    pipe = Pipeline(pool, 4, full="tma", empty="mbar", init_empty=2)
    p2 = Pipeline(pool, 2, full="tcgen05", empty="tcgen05", empty_phase_offset=1, leader=tx == 5)
    bar = MBarrier(pool, 2)
    pool.commit()
    r = bar.remote_view(1)
    r.arrive(0)
    r.arrive(1, pred=tx == 0, count=2)
    ps = PipelineState(4, 0)
    with WarpgroupRole(wg, 0, regs=40):
        with WarpRole(warp, 0):
            pipe.empty.wait(ps.stage, ps.phase)
            pipe.full.arrive(ps.stage, 1024)
    with WarpgroupRole(wg, 1, regs=232, increase=True):
        pipe.full.wait(ps.stage, ps.phase)
        pipe.empty.arrive(ps.stage)
        p2.empty.wait(0, 0)
    A[0, 0] = T.float16(0)


@T.prim_func
def g_lang_scheduler(A: T.Buffer((128, 64), "float32"), m: T.int32):
    T.device_entry()
    bx = T.cta_id([132])
    tx = T.thread_id([128])
    ts = ClusterPersistentScheduler2D("ts", num_m_tiles=10, num_n_tiles=6, num_clusters=132, l2_group_size=4)
    ts.init(bx)
    while ts.valid():
        A[ts.m_idx, ts.n_idx] = T.float32(1)
        ts.next_tile()
    t2 = ClusterPersistentScheduler2D("t2", num_m_tiles=8, num_n_tiles=4, num_clusters=66, l2_group_size=8, cluster_m=2)
    t2.init(bx // 2)
    while t2.valid():
        A[t2.m_idx, t2.n_idx] = T.float32(2)
        t2.next_tile()
    t3 = ClusterPersistentScheduler2D("t3", num_m_tiles=m, num_n_tiles=4, num_clusters=132)
    t3.init(bx)
    while t3.valid():
        A[t3.m_idx, t3.n_idx] = T.float32(3)
        t3.next_tile()
    d = SmemDescriptor()
    d.init(T.address_of(A[0, 0]), 1, 64, 3)
    A[1, 1] = T.reinterpret("float32", T.Cast("uint32", d.add_16B_offset(2)))
    A[2, 2] = T.reinterpret("float32", T.Cast("uint32", d.desc))


@T.prim_func
def g_lang_clc(A: T.Buffer((128, 64), "float32")):
    T.device_entry()
    cbx = T.cta_id_in_cluster([2])
    bx = T.cta_id([16])
    wg = T.warpgroup_id([2])
    warp = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    pool = T.SMEMPool()
    clc = ClusterLaunchControlScheduler(pool, num_m_tiles=4, num_n_tiles=2, l2_group_size=8, cta_group=2, finish_arrivals=5)
    pool.commit()
    if wg == 1:
        if warp == 0:
            ld = clc.worker("ld")
            ld.init(bx // 2)
            if T.cuda.elect_sync():
                while ld.valid():
                    A[ld.m_idx, ld.n_idx] = T.float32(1)
                    ld.consume()
                    ld.advance_coords()
                    ld.mark_done_if_drained()
        elif warp == 1:
            mm = clc.worker("mm")
            mm.reset()
            if T.cuda.elect_sync():
                while mm.valid():
                    mm.consume()
                    mm.mark_done_if_drained()
        elif warp == 2:
            clc.run_scheduler(cbx)
    else:
        wb = clc.worker("wb")
        wb.init(bx // 2)
        while wb.valid():
            wb.consume_wg(wg, warp, lane)
            wb.advance_coords()
            wb.mark_done_if_drained()


@T.prim_func
def g_lang_clc_dynamic(A: T.Buffer((128, 64), "float32"), m: T.int32):
    T.device_entry()
    cbx = T.cta_id_in_cluster([4])
    bx = T.cta_id([64])
    tx = T.thread_id([128])
    pool = T.SMEMPool()
    sched = ClusterLaunchControlScheduler(pool, num_m_tiles=20, num_n_tiles=3, l2_group_size=8, cta_group=4, finish_arrivals=8)
    dyn = ClusterLaunchControlScheduler(pool, m, 5, 4, 2, 3)
    pool.commit()
    w = sched.worker("w")
    w.init(bx // 4)
    while w.valid():
        A[w.m_idx, w.n_idx] = T.float32(1)
        A[w.tile_count, w.linear_idx] = T.float32(2)
        w.consume()
        w.advance_coords()
        w.mark_done_if_drained()
    d = dyn.worker("d")
    d.init(bx // 2)
    d.next_tile()
    nxt: T.uint32
    query_cancel_first_ctaid_x(nxt, T.address_of(sched.clc_handle[0]), use_ld_acquire=False)
    query_cancel_first_ctaid_x(nxt, T.address_of(dyn.clc_handle[0]))
    dyn.sched_arr.full.wait(0, 0)
    sched.run_scheduler(cbx)
    A[0, 0] = T.Cast("float32", nxt)


@T.prim_func
def g_lang_serpentine(A: T.Buffer((128, 64), "float32"), m: T.int32):
    T.device_entry()
    bx = T.cta_id([132])
    tx = T.thread_id([128])
    s1 = ClusterPersistentScheduler2D("s1", num_m_tiles=8, num_n_tiles=4, num_clusters=132, l2_group_size=2, serpentine=True)
    s1.init(bx)
    while s1.valid():
        A[s1.m_idx, s1.n_idx] = T.float32(1)
        s1.next_tile()
    s2 = ClusterPersistentScheduler2D("s2", num_m_tiles=8, num_n_tiles=5, num_clusters=66, l2_group_size=4, cluster_m=2, serpentine=True)
    s2.init(bx // 2)
    while s2.valid():
        A[s2.m_idx, s2.n_idx] = T.float32(2)
        s2.next_tile()
    s3 = ClusterPersistentScheduler2D("s3", num_m_tiles=10, num_n_tiles=4, num_clusters=132, l2_group_size=4, serpentine=True)
    s3.init(bx)
    while s3.valid():
        A[s3.m_idx, s3.n_idx] = T.float32(3)
        s3.next_tile_stride(264)
    s4 = ClusterPersistentScheduler2D("s4", num_m_tiles=m, num_n_tiles=8, num_clusters=132, l2_group_size=4, serpentine=True)
    s4.init(bx)
    while s4.valid():
        A[s4.m_idx, s4.n_idx] = T.float32(4)
        s4.next_tile()


@T.prim_func
def g_lang_schedulers(A: T.Buffer((128, 64), "float32"), idx: T.Buffer((64,), "int32"), m: T.int32):
    T.device_entry()
    bx = T.cta_id([132])
    tx = T.thread_id([128])
    g = GroupMajor3D("g", 10, 3, 2, 4)
    g.init(bx)
    while g.valid():
        A[g.m_idx, g.n_idx] = T.Cast("float32", g.k_idx)
        A[g.tile_idx, g.linear_idx] = T.float32(1)
        g.next_tile()
    g2 = GroupMajor3D("g2", m, 4, 1, 8, step=132)
    g2.init(bx)
    while g2.valid():
        A[g2.m_idx, g2.n_idx] = T.Cast("float32", g2.k_idx)
        g2.next_tile_stride(2)
    fl = FlashAttentionLinearScheduler("fl", 2, 4, 6, 132)
    fl.init(bx)
    while fl.valid():
        A[fl.batch_idx * 4 + fl.head_idx, fl.m_block_idx] = T.float32(1)
        fl.next_tile()
    lp = FlashAttentionLPTScheduler("lp", 2, 5, 6, 4)
    lp.init(bx)
    while lp.valid():
        A[lp.batch_idx * 5 + lp.head_idx, lp.m_block_idx] = T.float32(2)
        lp.next_tile()
    lq = FlashAttentionLPTScheduler("lq", 3, 4, 2, 8, num_ctas=132)
    lq.init(bx)
    while lq.valid():
        A[lq.batch_idx * 4 + lq.head_idx, lq.m_block_idx] = T.float32(3)
        lq.next_tile()
    ra = RankAwareGroupMajorTileScheduler("ra", 16, 4, 4, 4)
    ra.init(bx)
    while ra.valid():
        A[ra.m_idx, ra.n_idx] = T.float32(4)
        ra.next_tile(132)


# ---------------------------------------------------------------------------
# m_: IR modules
# ---------------------------------------------------------------------------

@I.ir_module
class m_two_funcs:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        A[0] = 1

    @T.prim_func
    def helper(A: T.Buffer((4,), "int32")):
        A[1] = 2


@I.ir_module
class m_cross_call:
    @T.prim_func(private=True)
    def add_one(x: T.int32) -> T.int32:
        return x + 1

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        A[0] = m_cross_call.add_one(A[1])


@I.ir_module
class m_kernel_and_host:
    @T.prim_func
    def kernel(A: T.Buffer((128,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        A[tx] = T.float32(0)

    @T.prim_func
    def zeta(A: T.Buffer((128,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func
    def alpha(n: T.int32) -> T.int32:
        return n * 2


@I.ir_module
class m_main_last:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        A[0] = 1

    @T.prim_func
    def zeta(A: T.Buffer((4,), "int32")):
        A[0] = 2


@I.ir_module
class m_module_attrs:
    I.module_attrs({"target_kind": "cuda", "opt_level": 3})

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        A[0] = 1


@I.ir_module
class m_module_global_infos:
    I.module_attrs({"opt_level": 3})
    I.module_global_infos({"vdevice": [I.vdevice({"arch": "sm_90a", "keys": ["cuda", "gpu"], "kind": "cuda", "max_num_threads": 1024, "tag": "", "thread_warp_size": 32}, 1, "global")], "dummy": [I.dummy_global_info(), I.dummy_global_info()]})

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        A[0] = 1


@I.ir_module
class m_symbolic_shared_typevar:
    @T.prim_func
    def f(a: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m,), "float32")
        A[0] = T.float32(0)

    @T.prim_func
    def g(a: T.handle):
        m = T.int64()
        A = T.match_buffer(a, (m, m * 2), "float32")
        A[0, 0] = T.float32(0)


def _collect():
    corpus = OrderedDict()
    for name, obj in list(globals().items()):
        if name.startswith("_"):
            continue
        if isinstance(obj, (tvm.tirx.PrimFunc, tvm.IRModule)):
            corpus[name] = obj
    return corpus


CORPUS = _collect()
