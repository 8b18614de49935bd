# pylint: disable=invalid-name,missing-function-docstring,unused-variable,undefined-variable
"""Corpus of small TIRx functions written in the reference's Python TVMScript.

Every module-level tirx Function / IRModule defined here lands in ``CORPUS``
(built at the bottom of the file) under its Python name, in definition order.  ``oracle.py`` prints
each one with the reference compiler into ``expected/<name>.tirx``.

The reference package is ``apache-tvm-tirx`` (Python package ``tvm_tirx``).
Its 0.1.0a4 authoring surface differs from the older design documented in
shared/reference/script_surface.md: the decorator is ``@T.function`` (there
is no ``T.prim_func``), tensors are ``T.Tensor`` (no ``T.Buffer`` /
``T.match_buffer``), scope ids are ``T.cuda.*`` expressions, tile primitives
are ``T.cuda.tile.apply/ewise``.  See NOTES.md.

Naming: p_ params/types, s_ scalars, l_ loops, c_ control flow, d_ device
entry/attrs, a_ allocation/declaration, v_ views, y_ layouts, e_
expressions, k_ T.cuda intrinsics, x_ T.ptx calls, t_ tile calls, g_ larger
kernel skeletons, m_ modules.
"""

from collections import OrderedDict

try:  # apache-tvm-tirx >= 0.1.0a3 installs the package as ``tvm_tirx``
    import tvm_tirx as tvm
    from tvm_tirx.script import ir as I  # noqa: E741
    from tvm_tirx.script import tirx as T
except ImportError:  # pragma: no cover - development builds
    import tvm  # type: ignore
    from tvm.script import ir as I  # type: ignore # noqa: E741
    from tvm.script import tirx as T  # type: ignore

T.function  # noqa: B018  (force lazy namespace initialisation)

from tvm_tirx.backend.cuda.lang import SMEMPool, MBarrier, TMABar  # noqa: E402

Ax = T.cuda.Axis
FULL = 0xFFFFFFFF
N_DYN = T.dynamic("n")
M_DYN = T.dynamic("m")
K64 = T.dynamic("k", "int64")


# ---------------------------------------------------------------------------
# p_: parameters, tensor types, dtypes
# ---------------------------------------------------------------------------


@T.function
def p_tensor_basic(A: T.Tensor((16, 16), "float16"), B: T.Tensor((16,), "float32")):
    B[0] = T.Cast("float32", A[1, 2])


@T.function
def p_scalar_params(n: T.int32, x: T.float32, b: T.bool, u: T.uint64, A: T.Tensor((4,), "float32")):
    if b:
        A[0] = x + T.Cast("float32", n) + T.Cast("float32", u)


@T.function
def p_ptr_params(a: T.handle, p: T.ptr("float16", "shared"), q: T.ptr("float32"), r: T.ptr("uint8", "local")):
    T.evaluate(0)


@T.function
def p_dtypes_int(
    A: T.Tensor((4,), "int8"),
    B: T.Tensor((4,), "int16"),
    C: T.Tensor((4,), "int32"),
    D: T.Tensor((4,), "int64"),
    E: T.Tensor((4,), "uint8"),
    F: T.Tensor((4,), "uint16"),
    G: T.Tensor((4,), "uint32"),
    H: T.Tensor((4,), "uint64"),
):
    C[0] = T.Cast("int32", A[0]) + T.Cast("int32", B[0]) + T.Cast("int32", D[0])
    G[0] = T.Cast("uint32", E[0]) + T.Cast("uint32", F[0]) + T.Cast("uint32", H[0])


@T.function
def p_dtypes_float(
    A: T.Tensor((4,), "float16"),
    B: T.Tensor((4,), "float32"),
    C: T.Tensor((4,), "float64"),
    D: T.Tensor((4,), "bfloat16"),
):
    B[0] = T.Cast("float32", A[0]) + T.Cast("float32", C[0]) + T.Cast("float32", D[0])


@T.function
def p_dtypes_lowp(
    A: T.Tensor((32,), "float8_e4m3fn"),
    B: T.Tensor((32,), "float8_e5m2"),
    C: T.Tensor((32,), "float8_e8m0fnu"),
    D: T.Tensor((32,), "float4_e2m1fn"),
    E: T.Tensor((32,), "float6_e2m3fn"),
    F: T.Tensor((32,), "float32"),
):
    F[0] = T.Cast("float32", A[0]) + T.Cast("float32", B[0]) + T.Cast("float32", C[0])
    F[1] = T.Cast("float32", D[0]) + T.Cast("float32", E[0])


@T.function
def p_dtypes_vector(
    A: T.Tensor((8,), "float16x2"),
    B: T.Tensor((8,), "float32x4"),
    C: T.Tensor((8,), "int8x4"),
    D: T.Tensor((8,), "float8_e4m3fnx4"),
    E: T.Tensor((8,), "bfloat16"),
):
    B[0] = T.Cast("float32x4", D[0])
    A[1] = A[0]


@T.function
def p_symbolic_shape(A: T.Tensor((N_DYN,), "float32"), B: T.Tensor((N_DYN, 4), "float16")):
    A[0] = T.Cast("float32", B[0, 0])


@T.function
def p_symbolic_two(A: T.Tensor((M_DYN, N_DYN), "float32"), n: T.int32):
    for i in range(n):
        A[0, i] = T.float32(0)


@T.function
def p_symbolic_int64(A: T.Tensor((K64,), "float32")):
    A[T.int64(0)] = T.float32(1)


@T.function
def p_tensor_layout_param(
    A: T.Tensor((64, 64), "float16", layout=T.TileLayout(T.S[(64, 64):(1, 64)])),
    B: T.Tensor((128,), "float32", align=16),
):
    B[0] = T.Cast("float32", A[0, 1])


@T.function
def p_tensor_scope_param(A: T.Tensor((64,), "float16", scope="shared"), B: T.Tensor((8,), "float32", scope="local")):
    B[0] = T.Cast("float32", A[3])


@T.function
def p_ret_int(n: T.int32) -> T.int32:
    return n * 2 + 1


@T.function
def p_ret_float(x: T.float32, y: T.float32) -> T.float32:
    return x * y + T.float32(0.5)


@T.function
def p_ret_bool(a: T.int32, b: T.int32) -> T.bool:
    return a < b


@T.function(private=True)
def p_private_func(A: T.Tensor((4,), "int32")):
    A[0] = 1


# ---------------------------------------------------------------------------
# s_: scalars, let bindings, mutable cells
# ---------------------------------------------------------------------------


@T.function
def s_let_typed(A: T.Tensor((4,), "int32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    y: T.let[T.int64] = T.Cast("int64", x) * T.int64(3)
    A[0] = T.Cast("int32", y)


@T.function
def s_let_inferred(A: T.Tensor((4,), "float32"), x: T.float32):
    y: T.let = x * T.float32(2)
    z: T.let = y + x
    A[0] = z


@T.function
def s_let_ptr(A: T.Tensor((16,), "float16")):
    p: T.let = T.address_of(A[4])
    q: T.let[T.ptr("float16")] = T.address_of(A[8])
    T.evaluate(T.call_extern("use_ptr", p, q, ty=T.void))


@T.function
def s_mutable_int(A: T.Tensor((4,), "int32"), n: T.int32):
    x: T.int32 = 0
    for i in range(n):
        x = x + i
    A[0] = x


@T.function
def s_mutable_uninit(A: T.Tensor((4,), "float32")):
    y: T.float32
    y = T.float32(2)
    A[0] = y * y


@T.function
def s_mutable_dtypes(A: T.Tensor((4,), "float32")):
    a: T.uint64 = T.uint64(1)
    b: T.float16 = T.float16(0.5)
    c: T.bool = T.bool(False)
    d: T.int8 = T.int8(-3)
    e: T.bfloat16
    if c:
        A[0] = T.Cast("float32", a) + T.Cast("float32", b) + T.Cast("float32", d)


@T.function
def s_augassign(A: T.Tensor((4,), "int32"), n: T.int32):
    x: T.int32 = n
    x += 3
    x -= 1
    x *= 2
    x //= 4
    x %= 7
    A[0] = x


@T.function
def s_local_scalar(A: T.Tensor((4,), "int32")):
    s = T.local_scalar("int32", 5)
    t = T.local_scalar("float32")
    A[0] = s + 1


@T.function
def s_shared_scalar(A: T.Tensor((4,), "uint64")):
    with T.device_entry():
        bar = T.shared_scalar("uint64")
        bar = T.uint64(0)
        A[0] = bar


@T.function
def s_alloc_scalar(A: T.Tensor((4,), "int32")):
    g = T.alloc_scalar("int32", "global")
    g = 7
    A[0] = g


@T.function
def s_mutable_name_reuse(A: T.Tensor((8,), "int32")):
    for i in range(2):
        acc: T.int32 = 0
        acc = acc + i
        A[i] = acc
    for i in range(2):
        acc: T.int32 = 1
        A[i + 2] = acc


# ---------------------------------------------------------------------------
# l_: loops
# ---------------------------------------------------------------------------


@T.function
def l_range(A: T.Tensor((16,), "int32")):
    for i in range(16):
        A[i] = i


@T.function
def l_range_start_step(A: T.Tensor((16,), "int32")):
    for i in range(2, 10):
        A[i] = 1
    for j in range(1, 16, 3):
        A[j] = 2


@T.function
def l_serial_annot(A: T.Tensor((8,), "int32")):
    for i in T.serial(8, annotations={"pragma_key": 1, "another": "v"}):
        A[i] = 0


@T.function
def l_serial_unroll(A: T.Tensor((8, 8), "int32")):
    for i in T.serial(8, unroll=True):
        A[0, i] = 1
    for i in T.serial(8, unroll=4):
        A[1, i] = 2
    for i in T.serial(8, unroll=False):
        A[2, i] = 3


@T.function
def l_unroll(A: T.Tensor((8,), "int32")):
    for i in T.unroll(8):
        A[i] = i * 2


@T.function
def l_vectorized(A: T.Tensor((8,), "float16")):
    for i in T.vectorized(8):
        A[i] = T.float16(0)


@T.function
def l_parallel(A: T.Tensor((64,), "float32")):
    for i in T.parallel(2, 64):
        A[i] = T.float32(1)


@T.function
def l_grid(A: T.Tensor((4, 8, 2), "int32")):
    for i, j, k in T.grid(4, 8, 2):
        A[i, j, k] = i + j + k


@T.function
def l_symbolic_extent(A: T.Tensor((64,), "int32"), n: T.int32, m: T.int32):
    for i in range(n):
        for j in range(m, n):
            A[i] = j


@T.function
def l_uint32(A: T.Tensor((8,), "int32")):
    for i in T.serial(8, dtype="uint32"):
        A[i] = T.Cast("int32", i)
    for j in range(T.uint32(4)):
        A[j] = 0


@T.function
def l_sibling_names(A: T.Tensor((8,), "int32")):
    for i in range(4):
        A[i] = 0
    for i in range(4):
        A[i + 4] = 1
    for i in range(2):
        for i_1 in range(2):
            A[i] = i_1


@T.function
def l_nested_kinds(A: T.Tensor((4, 4, 4), "float32")):
    for i in T.parallel(4):
        for j in T.serial(4, annotations={"k": 1}):
            for k in T.vectorized(4):
                A[i, j, k] = T.float32(0)


@T.function
def l_launch_thread(A: T.Tensor((128,), "float32")):
    with T.launch_thread("blockIdx.x", 4) as bx:
        with T.launch_thread("threadIdx.x", 32) as tx:
            A[bx * 32 + tx] = T.float32(0)


# ---------------------------------------------------------------------------
# c_: control flow
# ---------------------------------------------------------------------------


@T.function
def c_while(A: T.Tensor((4,), "int32"), n: T.int32):
    i: T.int32 = 0
    while i < n:
        A[0] = A[0] + i
        i = i + 1


@T.function
def c_if_else(A: T.Tensor((4,), "int32"), n: T.int32):
    if n > 0:
        A[0] = 1
    else:
        A[0] = 2
    if n == 3:
        A[1] = 3


@T.function
def c_elif(A: T.Tensor((4,), "int32"), n: T.int32):
    if n < 0:
        A[0] = -1
    elif n == 0:
        A[0] = 0
    else:
        A[0] = 1


@T.function
def c_assert(A: T.Tensor((4,), "int32"), n: T.int32):
    assert n > 0, "n must be positive"
    assert n < 100
    A[0] = n


@T.function
def c_return_value(n: T.int32) -> T.int32:
    if n > 3:
        return n * 2
    return n


@T.function
def c_break_continue(A: T.Tensor((16,), "int32"), n: T.int32):
    for i in range(16):
        if i == n:
            break
        if i % 2 == 1:
            continue
        A[i] = i


@T.function
def c_while_break(A: T.Tensor((4,), "int32")):
    x: T.int32 = 0
    while True:
        x = x + 1
        if x > 10:
            break
    A[0] = x


@T.function
def c_evaluate(A: T.Tensor((4,), "int32"), n: T.int32):
    T.evaluate(n + 1)
    T.evaluate(0)
    A[0] = n


# ---------------------------------------------------------------------------
# d_: device entry, launch configuration, function attributes, scope ids
# ---------------------------------------------------------------------------


@T.function
def d_device_entry_bare(A: T.Tensor((128,), "float32")):
    with T.device_entry():
        tx = T.cuda.thread_idx("x")
        A[tx] = T.float32(0)


@T.function
def d_launch_config(A: T.Tensor((128,), "float32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=(4, 2), block=128)):
        bx = T.cuda.block_idx("x")
        tx = T.cuda.thread_idx("x")
        A[tx] = T.Cast("float32", bx)


@T.function
def d_launch_smem_bounds(A: T.Tensor((128,), "float32")):
    with T.device_entry(
        launch=T.cuda.LaunchConfig(grid=132, block=(128, 1, 1), dynamic_smem_bytes=49152),
        kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=2),
    ):
        A[0] = T.float32(0)


@T.function
def d_launch_cluster(A: T.Tensor((128,), "float32"), n: T.int32):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=n, block=(32, 4), cluster=(2, 1, 1))):
        cx = T.cuda.cluster_cta_id("x")
        A[cx] = T.float32(0)


@T.function
def d_two_entries(A: T.Tensor((128,), "float32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32)):
        A[0] = T.float32(1)
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64)):
        A[1] = T.float32(2)


@T.function
def d_func_attr(A: T.Tensor((128,), "float32")):
    T.func_attr({"tir.noalias": True, "my_attr": 3, "a_str": "s", "flt": 1.5})
    A[0] = T.float32(0)


@T.function(private=True, persistent=True)
def d_private_persistent(A: T.Tensor((128,), "float32")):
    A[0] = T.float32(0)


@T.function(persistent=True)
def d_persistent(A: T.Tensor((128,), "float32")):
    with T.device_entry():
        A[0] = T.float32(0)


@T.function
def d_scope_ids_block_thread(A: T.Tensor((64, 64), "float32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=(8, 8), block=(8, 8))):
        bx = T.cuda.block_idx("x")
        by = T.cuda.block_idx("y")
        tx = T.cuda.thread_idx("x")
        ty = T.cuda.thread_idx("y")
        A[by * 8 + ty, bx * 8 + tx] = T.float32(0)


@T.function
def d_scope_ids_warp_lane(A: T.Tensor((256,), "int32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=256)):
        w = T.cuda.warp_id()
        l = T.cuda.lane_id()
        wg = T.cuda.warpgroup_id()
        tw = T.cuda.thread_in_warpgroup()
        ww = T.cuda.warp_in_warpgroup()
        A[w * 32 + l] = wg + tw + ww


@T.function
def d_scope_ids_cluster(A: T.Tensor((256,), "int32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=128, cluster=2)):
        c = T.cuda.cluster_id("x")
        cc = T.cuda.cluster_cta_id("x")
        pr = T.cuda.cta_pair_id()
        r = T.cuda.thread_rank()
        lt = T.cuda.linear_thread_id()
        A[r] = c + cc + pr + lt


@T.function
def d_dims(A: T.Tensor((8,), "int32")):
    with T.device_entry():
        A[0] = T.cuda.block_dim("x") * T.cuda.grid_dim("y") + T.cuda.cluster_dim("z")


@T.function
def d_device_context(A: T.Tensor((8,), "int32")):
    with T.device_context(2, 0):
        A[0] = 1


# ---------------------------------------------------------------------------
# a_: allocation and declaration
# ---------------------------------------------------------------------------


@T.function
def a_alloc_shared_local(A: T.Tensor((128,), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        L = T.alloc_local((8,), "float32")
        D = T.alloc_shared((32,))
        S[0, 0] = A[0]
        L[0] = T.Cast("float32", S[0, 0])
        D[1] = L[0]


@T.function
def a_alloc_tensor_scopes(A: T.Tensor((4,), "int8")):
    with T.device_entry():
        G = T.alloc_tensor(ty_args=[T.Tensor((4,), "int8", scope="shared.dyn")])
        H = T.alloc_tensor(ty_args=[T.Tensor((16, 2), "float32")])
        J = T.alloc_tensor(ty_args=[T.Tensor((8,), "uint64", scope="local")])
        G[0] = A[0]


@T.function
def a_alloc_align(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        S = T.alloc_shared((256,), "uint8", align=128)
        P = T.alloc_tensor(ty_args=[T.Tensor((1024,), "uint8", scope="shared.dyn", align=1024)])
        S[0] = P[0]


@T.function
def a_alloc_annotations(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        S = T.alloc_tensor(ty_args=[T.Tensor((64,), "float32", scope="shared")], annotations={"note": 1, "flag": True})
        S[0] = A[0]


@T.function
def a_smem_alias(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        S = T.smem((16, 16), "float32")
        S[0, 0] = A[0]


@T.function
def a_tmem_alloc(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        t = T.tmem((128, 256), "float32", allocated_addr=0)
        u = T.tmem((128, 64), "float16", allocated_addr=256)
        A[0] = T.float32(0)


@T.function
def a_decl_tensor_data(A: T.Tensor((64,), "float16")):
    with T.device_entry():
        P = T.alloc_tensor(ty_args=[T.Tensor((1024,), "uint8", scope="shared.dyn")])
        X = T.decl_tensor(P.data, ty_args=[T.Tensor((64,), "float16", scope="shared.dyn")])
        X[0] = A[0]


@T.function
def a_decl_tensor_offset(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        P = T.alloc_tensor(ty_args=[T.Tensor((1024,), "uint8", scope="shared.dyn")])
        Y = T.decl_tensor(T.address_of(P[128]), ty_args=[T.Tensor((32,), "float32", scope="shared.dyn")])
        Z = T.decl_tensor(
            T.ptr_byte_offset(P.data, 256, ty=T.Ptr("float16", "shared.dyn")),
            ty_args=[T.Tensor((8, 8), "float16", scope="shared.dyn")],
        )
        Y[0] = A[0]
        Z[0, 0] = T.float16(1)


@T.function
def a_decl_tensor_global(a: T.ptr("float32"), n: T.int32):
    A = T.decl_tensor(a, ty_args=[T.Tensor((16,), "float32")])
    A[0] = T.Cast("float32", n)


@T.function
def a_decl_tmem(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        addr = T.shared_scalar("uint32")
        u = T.cuda.decl_tmem(addr, ty_args=[T.Tensor((128, 64), "float32", scope="tmem")])
        A[0] = T.Cast("float32", T.cuda.get_tmem_addr(addr, 0, 32))


@T.function
def a_decl_scalar(A: T.Tensor((4,), "float16")):
    with T.device_entry():
        P = T.alloc_tensor(ty_args=[T.Tensor((64,), "uint8", scope="shared.dyn")])
        e = T.decl_scalar("float16", P.data, "shared.dyn")
        e = T.float16(2)
        A[0] = e


@T.function
def a_smem_pool(A: T.Tensor((64, 64), "float16")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128)):
        pool = SMEMPool()
        As = pool.alloc((64, 64), "float16", align=128)
        Bs = pool.alloc((32,), "float32")
        bars = pool.alloc((2,), "uint64", align=8)
        pool.commit()
        As[0, 0] = A[0, 0]
        Bs[0] = T.float32(1)


# ---------------------------------------------------------------------------
# v_: tensor views
# ---------------------------------------------------------------------------


@T.function
def v_view_reshape(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        B = S.view(4096)
        C = S.view(32, 128)
        B[0] = A[0, 0]
        C[1, 2] = A[0, 1]


@T.function
def v_view_infer(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        B = S.view(-1, 16)
        B[0, 0] = A[0, 0]


@T.function
def v_view_dtype(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        W = S.view("float32")
        N = S.view("uint8")
        W[0, 0] = T.float32(0)
        N[0, 0] = T.uint8(1)


@T.function
def v_permute(A: T.Tensor((8, 16, 4), "float32")):
    with T.device_entry():
        S = T.alloc_shared((8, 16, 4), "float32")
        P = S.permute(2, 0, 1)
        P[0, 1, 2] = A[1, 2, 0]


@T.function
def v_rearrange(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        R = S.rearrange("a (b c) -> (a b) c", c=8)
        R[0, 0] = A[0, 0]


@T.function
def v_sub_select(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        row = S.sub[3]
        row[5] = A[0, 0]


@T.function
def v_sub_narrow(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        blk = S.sub[0:32, 8:16]
        blk[1, 1] = A[0, 0]


@T.function
def v_sub_step(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        odd = S.sub[1::2]
        odd[0, 0] = A[0, 0]


@T.function
def v_sub_dynamic(A: T.Tensor((64, 64), "float16"), k: T.int32):
    with T.device_entry():
        S = T.alloc_shared((4, 64, 64), "float16")
        stage = S.sub[k]
        stage[0, 0] = A[0, 0]


@T.function
def v_view_of_swizzled(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[64, 64])))
        V = S.view(4096)
        V[0] = A[0, 0]


@T.function
def v_ptr_to(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        p = S.ptr_to([1, 2])
        T.evaluate(T.call_extern("consume", p, S.data, A.data, ty=T.void))


# ---------------------------------------------------------------------------
# y_: layouts
# ---------------------------------------------------------------------------


@T.function
def y_tile_strided(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        S = T.alloc_shared((16, 32), "float32", layout=T.TileLayout(T.S[(16, 32):(1, 16)]))
        S[0, 0] = A[0]


@T.function
def y_tile_extents_only(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        S = T.alloc_shared((4, 8, 2), "float32", layout=T.TileLayout(T.S[4, 8, 2]))
        S[0, 0, 0] = A[0]


@T.function
def y_thread_axes(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        L = T.alloc_local((64,), "float32", layout=T.TileLayout(T.S[(8, 4, 2):(4 @ Ax.laneid, 1 @ Ax.laneid, 1)]))
        L[0] = A[0]


@T.function
def y_replica_offset(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        R = T.alloc_local((32,), "float32", layout=T.TileLayout(T.S[32:1 @ Ax.laneid] + T.R[4:1 @ Ax.warpid] + 5))
        R[0] = A[0]


@T.function
def y_offset_axes(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        R = T.alloc_local((8,), "float32", layout=T.TileLayout(T.S[8:4 @ Ax.laneid] + (1 @ Ax.laneid + 64 + 2 @ Ax.warpid)))
        R[0] = A[0]


@T.function
def y_tmem_axes(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        t = T.tmem((64, 128), "float32", allocated_addr=0, layout=T.TileLayout(T.S[(64, 128):(1 @ Ax.TLane, 1 @ Ax.TCol)]))
        A[0] = T.float32(0)


@T.function
def y_compose_swizzle(A: T.Tensor((64,), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[64, 64])))
        Q = T.alloc_shared((8, 64), "float16", layout=T.ComposeLayout(0, 2, 3, T.TileLayout(T.S[8, 64]), swizzle_inner=False))
        S[0, 0] = A[0]
        Q[0, 0] = A[1]


@T.function
def y_from_iters(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        S = T.alloc_shared(
            (8, 8),
            "float32",
            layout=T.TileLayout.from_iters([T.Iter(8, 8, "m"), T.Iter(8, 1, "m")], [], {"m": 3}),
        )
        S[0, 0] = A[0]


@T.function
def y_wg_axes(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        L = T.alloc_local((128,), "float32", layout=T.TileLayout(T.S[(4, 32):(1 @ Ax.wid_in_wg, 1 @ Ax.laneid)] + T.R[2:1 @ Ax.wgid]))
        L[0] = A[0]


# ---------------------------------------------------------------------------
# e_: expressions
# ---------------------------------------------------------------------------


@T.function
def e_arith_int(A: T.Tensor((16,), "int32"), a: T.int32, b: T.int32):
    A[0] = a + b - a * b
    A[1] = (a + b) * (a - b)
    A[2] = a - (b - 1)
    A[3] = a * (b // 2)
    A[4] = a + 1 - 1
    A[5] = 0 - a
    A[6] = -a
    A[7] = T.Add(1, 2)


@T.function
def e_divmod(A: T.Tensor((16,), "int32"), a: T.int32, b: T.int32):
    A[0] = a // b
    A[1] = a % b
    A[2] = T.floordiv(a, b) + T.floormod(a, b)
    A[3] = T.truncdiv(a, b)
    A[4] = T.truncmod(a, b)
    A[5] = T.ceildiv(a, 4)
    A[6] = a // b * b + a % b


@T.function
def e_float_div(B: T.Tensor((4,), "float32"), x: T.float32, y: T.float32):
    B[0] = x / y
    B[1] = x / (y + T.float32(1))


@T.function
def e_bitwise(A: T.Tensor((16,), "int32"), a: T.int32, b: T.int32):
    A[0] = a & b
    A[1] = a | b
    A[2] = a ^ b
    A[3] = ~a
    A[4] = T.bitwise_and(a, b) | (a ^ b)
    A[5] = T.bitwise_or(a, b) + T.bitwise_xor(a, b)
    A[6] = T.bitwise_not(b) & 255


@T.function
def e_shifts(A: T.Tensor((8,), "int32"), U: T.Tensor((8,), "uint32"), a: T.int32, b: T.int32, u: T.uint32):
    A[0] = (a << 2) >> 1
    A[1] = T.shift_left(a, b) + T.shift_right(a, b)
    U[0] = u >> T.uint32(3)
    U[1] = (u << T.uint32(4)) | T.uint32(1)


@T.function
def e_compare_logic(A: T.Tensor((8,), "int32"), a: T.int32, b: T.int32, p: T.bool):
    A[0] = T.if_then_else(a == b and a != 0 or not (a > b), 1, 0)
    A[1] = T.if_then_else(a >= b, a, b)
    A[2] = T.if_then_else(a <= b and p, a, b)
    A[3] = T.if_then_else(not p, 1, 2)
    A[4] = T.Cast("int32", a < b)


@T.function
def e_select(A: T.Tensor((8,), "int32"), a: T.int32, b: T.int32):
    A[0] = T.Select(a < b, a, b)
    A[1] = T.select(a < b, a, b)
    A[2] = T.if_then_else(a < b, a, b)
    A[3] = a if a > b else b


@T.function
def e_minmax(A: T.Tensor((8,), "int32"), B: T.Tensor((8,), "float32"), a: T.int32, b: T.int32, x: T.float32, y: T.float32):
    A[0] = T.min(a, b)
    A[1] = T.max(a, b)
    B[0] = T.min(x, y) + T.max(x, T.float32(0))


@T.function
def e_cast(A: T.Tensor((8,), "int32"), B: T.Tensor((8,), "float32"), x: T.float32, h: T.float16, u: T.uint32, l: T.int64):
    A[0] = T.Cast("int32", x)
    A[1] = T.cast(x, "int32")
    A[2] = T.Cast("int32", h)
    A[3] = T.Cast("int32", u) + T.Cast("int32", l)
    B[0] = T.Cast("float32", T.Cast("bfloat16", x))
    B[1] = T.Cast("float32", T.Cast("float8_e4m3fn", x))
    B[2] = T.Cast("float32", T.Cast("float8_e5m2", x))
    B[3] = T.Cast("float32", T.Cast("float8_e8m0fnu", x))
    B[4] = T.Cast("float32", T.Cast("float4_e2m1fn", x))


@T.function
def e_reinterpret(A: T.Tensor((8,), "int32"), U: T.Tensor((8,), "uint32"), x: T.float32, h: T.Tensor((2,), "float16")):
    A[0] = T.reinterpret(x, ty=T.int32)
    U[0] = T.reinterpret(x, ty=T.uint32)
    U[1] = T.reinterpret(T.Broadcast(h[0], 2), ty=T.uint32)


@T.function
def e_float_literals(B: T.Tensor((16,), "float32"), x: T.float32):
    B[0] = T.float32(1.25) + x
    B[1] = T.float32(0.1) + x
    B[2] = T.float32(1e-5) + x
    B[3] = T.float32(1e20) + x
    B[4] = T.float32(123456789.0) + x
    B[5] = T.float32(2.5e-10) + x
    B[6] = T.float32(0.3333333) + x
    B[7] = x + 0.5
    B[8] = T.float32("inf")
    B[9] = T.float32("-inf")
    B[10] = T.float32("nan")
    B[11] = T.float32(3)
    B[12] = T.float32(-2.5)
    B[13] = T.float32(100000.0)
    B[14] = T.float32(1.25) + T.float32(2)


@T.function
def e_float_literal_dtypes(B: T.Tensor((8,), "float32"), d: T.float64):
    B[0] = T.Cast("float32", d + T.float64(0.1))
    B[1] = T.Cast("float32", T.float16(0.1))
    B[2] = T.Cast("float32", T.bfloat16(1.5))
    B[3] = T.Cast("float32", T.float8_e4m3fn(1.5))
    B[4] = T.Cast("float32", T.float16(65504.0))
    B[5] = T.Cast("float32", d * T.float64(1e300))


@T.function
def e_int_literals(A: T.Tensor((8,), "int32"), l: T.int64, u: T.uint32):
    A[0] = T.Cast("int32", T.uint8(255)) + T.Cast("int32", T.int8(-1))
    A[1] = T.Cast("int32", T.int16(7)) + T.Cast("int32", T.uint16(7))
    A[2] = T.Cast("int32", T.uint32(4294967295) & u)
    A[3] = T.Cast("int32", l * T.int64(3) + T.int64(-9223372036854775808))
    A[4] = T.Cast("int32", T.uint64(18446744073709551615) > T.uint64(0))
    A[5] = T.Cast("int32", T.bool(True))
    A[6] = -2147483648
    A[7] = 2147483647


@T.function
def e_math(B: T.Tensor((16,), "float32"), x: T.float32, y: T.float32):
    B[0] = T.exp(x) + T.exp2(x) + T.exp10(x)
    B[1] = T.log(x) + T.log2(x) + T.log10(x) + T.log1p(x)
    B[2] = T.sqrt(x) + T.rsqrt(y)
    B[3] = T.sin(x) + T.cos(x) + T.tan(x) + T.tanh(x)
    B[4] = T.abs(x) + T.fabs(y)
    B[5] = T.pow(x, y) + T.fmod(x, y)
    B[6] = T.floor(x) + T.ceil(x) + T.round(x) + T.trunc(x) + T.nearbyint(x)
    B[7] = T.fma(x, y, x)
    B[8] = T.sigmoid(x) + T.erf(x)
    B[9] = T.atan2(x, y) + T.hypot(x, y) + T.copysign(x, y)


@T.function
def e_int_math(A: T.Tensor((8,), "int32"), a: T.int32, x: T.float32):
    A[0] = T.clz(a) + T.popcount(a)
    A[1] = T.Cast("int32", T.isnan(x)) + T.Cast("int32", T.isinf(x))
    A[2] = T.Cast("int32", T.likely(a < 3))
    A[3] = T.abs(a)


@T.function
def e_vector(A: T.Tensor((16,), "int32"), B: T.Tensor((8,), "float32"), a: T.int32, h: T.float16):
    A[0:4] = T.Broadcast(a, 4)
    A[4:8] = T.Ramp(a, 1, 4)
    A[8:16:2] = T.Ramp(a, 2, 4)
    B[0:2] = T.Cast("float32x2", T.Broadcast(h, 2))
    A[12:16] = T.Broadcast(a + 1, 4) * T.Ramp(0, 1, 4)


@T.function
def e_call_extern(A: T.Tensor((8,), "int32"), a: T.int32, b: T.int32):
    A[0] = T.call_extern("my_fn", a, b, ty=T.int32)
    A[1] = T.call_pure_extern("my_pure", a, ty="int32")
    T.call_extern("side_effect", a, ty=T.void)
    A[2] = T.call_extern("no_args", ty=T.int32)


@T.function
def e_call_packed(A: T.Tensor((8,), "int32"), a: T.int32):
    T.call_packed("my.packed", a, A.data)


@T.function
def e_address_of(A: T.Tensor((16,), "float32")):
    T.evaluate(T.call_extern("f", T.address_of(A[3]), A.data, ty=T.void))


@T.function
def e_bool_ops(A: T.Tensor((4,), "bool"), p: T.bool, q: T.bool):
    A[0] = p and q
    A[1] = p or not q
    A[2] = T.bool(True)
    A[3] = p == q


@T.function
def e_uint_arith(U: T.Tensor((4,), "uint32"), V: T.Tensor((4,), "uint64"), u: T.uint32, w: T.uint64):
    U[0] = u + T.uint32(1)
    U[1] = u * T.uint32(3) // T.uint32(2)
    V[0] = w + T.Cast("uint64", u)
    V[1] = w >> T.uint64(32)


@T.function
def e_precedence(A: T.Tensor((8,), "int32"), a: T.int32, b: T.int32, c: T.int32):
    A[0] = (a + b) // c
    A[1] = a // (b * c)
    A[2] = a - b - c
    A[3] = a - (b + c)
    A[4] = (a & b) + c
    A[5] = a & (b + c)
    A[6] = (a << b) << c
    A[7] = a << (b << c)


# ---------------------------------------------------------------------------
# k_: T.cuda intrinsics
# ---------------------------------------------------------------------------


@T.function
def k_sync(A: T.Tensor((4,), "int32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=2, block=128, cluster=2)):
        T.cuda.cta_sync()
        T.cuda.warp_sync()
        T.cuda.cluster_sync()
        T.cuda.warpgroup_sync(1)
        T.cuda.thread_fence()
        A[0] = 1


@T.function
def k_elect_sync(A: T.Tensor((4,), "int32")):
    with T.device_entry():
        if T.cuda.elect_sync():
            A[0] = 1
        A[1] = T.Cast("int32", T.cuda.elect_sync())


@T.function
def k_shfl(A: T.Tensor((4,), "int32"), B: T.Tensor((4,), "float32"), a: T.int32, x: T.float32):
    with T.device_entry():
        A[0] = T.cuda.__shfl_sync(T.uint32(FULL), a, 0, 32)
        A[1] = T.cuda.__shfl_xor_sync(T.uint32(FULL), a, 1, 32)
        A[2] = T.cuda.__shfl_up_sync(T.uint32(FULL), a, 1, 32)
        B[0] = T.cuda.__shfl_down_sync(T.uint32(FULL), x, 1, 32)
        A[3] = T.Cast("int32", T.cuda.__activemask())


@T.function
def k_printf(A: T.Tensor((4,), "int32"), a: T.int32, x: T.float32):
    with T.device_entry():
        T.cuda.printf("a=%d x=%f\n", a, x)
        T.cuda.printf("plain")
        T.cuda.printf("quote \" backslash \\ tab \t")


@T.function
def k_tmem_addr(A: T.Tensor((4,), "uint32"), u: T.uint32, ni: T.int32):
    with T.device_entry():
        A[0] = T.cuda.get_tmem_addr(u, 0, 32)
        A[1] = T.cuda.get_tmem_addr(T.uint32(400), 1, ni * 64)


@T.function
def k_descriptors(A: T.Tensor((4,), "uint64"), S: T.Tensor((64, 64), "float16", scope="shared")):
    with T.device_entry():
        desc: T.uint64
        T.cuda.wgmma_encode_matrix_descriptor(T.address_of(desc), T.address_of(S[0, 0]), 1, 64, 3)
        T.cuda.tcgen05_encode_matrix_descriptor(T.address_of(desc), T.address_of(S[0, 0]), 1, 64, 2)
        A[0] = desc


@T.function
def k_instr_descriptor(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        T.cuda.tcgen05_encode_instr_descriptor(
            T.address_of(d), d_dtype="float32", a_dtype="float16", b_dtype="float16", M=128, N=256, K=16, trans_a=False, trans_b=True
        )
        A[0] = d


@T.function
def k_warp_reduce(A: T.Tensor((4,), "int32"), B: T.Tensor((4,), "float32"), a: T.int32, x: T.float32):
    with T.device_entry():
        A[0] = T.cuda.warp_sum(a)
        A[1] = T.cuda.warp_max(a, 16)
        A[2] = T.cuda.warp_min(a)
        B[0] = T.cuda.warp_reduce(x, "sum")


@T.function
def k_misc(A: T.Tensor((8,), "int32"), B: T.Tensor((8,), "float32"), u: T.uint32, x: T.float32, y: T.float32, h: T.float16):
    with T.device_entry():
        A[0] = T.Cast("int32", T.cuda.clock64())
        A[1] = T.Cast("int32", T.cuda.float_as_uint(x))
        B[0] = T.cuda.uint_as_float(u)
        A[2] = T.cuda.ffs_u32(u)
        B[1] = T.cuda.fdividef(x, y)
        B[2] = T.cuda.half2float(h)
        A[3] = T.Cast("int32", T.cuda.mov_sreg(32, "%smid"))
        T.cuda.nano_sleep(100)


@T.function
def k_vote(A: T.Tensor((8,), "int32"), a: T.int32):
    with T.device_entry():
        A[0] = T.Cast("int32", T.cuda.ballot_sync(T.uint32(FULL), a))
        A[1] = T.Cast("int32", T.cuda.any_sync(T.uint32(FULL), a))
        A[2] = T.cuda.syncthreads_or(a)
        A[3] = T.cuda.syncthreads_and(a)


@T.function
def k_func_call(A: T.Tensor((4,), "int32"), a: T.int32, b: T.int32):
    with T.device_entry():
        A[0] = T.cuda.func_call("my_dev", a, b, "__device__ int my_dev(int a, int b) { return a + b; }", ty=T.int32)


@T.function
def k_func_call_multiline(A: T.Tensor((4,), "int32"), a: T.int32):
    with T.device_entry():
        A[0] = T.cuda.func_call("my_dev2", a, "__device__ int my_dev2(int a) {\n  return a * 2;\n}\n", ty=T.int32)


@T.function
def k_atomic(A: T.Tensor((4,), "int32"), a: T.int32):
    with T.device_entry():
        old: T.let = T.cuda.atomic_add(T.address_of(A[0]), a)
        A[1] = old


@T.function
def k_mbarrier_wait(A: T.Tensor((4,), "int32")):
    with T.device_entry():
        bar = T.alloc_shared((2,), "uint64")
        T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)
        T.cuda.mbarrier_wait(bar.ptr_to([1]), 1)


@T.function
def k_cvta(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        S = T.alloc_shared((64,), "float16")
        A[0] = T.cuda.cvta_generic_to_shared(T.address_of(S[8]))


# ---------------------------------------------------------------------------
# x_: T.ptx table-driven PTX calls
# ---------------------------------------------------------------------------


@T.function
def x_logic_b32(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        T.ptx.and_.b32(d, A[0], A[1])
        T.ptx.or_.b32(d, A[0], A[1])
        T.ptx.xor.b32(d, A[0], A[1])
        T.ptx.not_.b32(d, A[0])
        A[3] = d


@T.function
def x_logic_bracket(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        T.ptx["and.b32"](d, A[0], A[1])
        T.ptx["or.b32"](d, A[0], A[1])
        T.ptx["xor.b32"](d, A[0], A[1])
        A[3] = d


@T.function
def x_logic_pred(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        p: T.uint32
        q: T.uint32
        r: T.uint32
        T.ptx.and_.pred(p, T.ptx.pred(q), T.ptx.pred(r))
        T.ptx.not_.pred(p, T.ptx.pred(q))
        A[0] = p


@T.function
def x_lop3(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        T.ptx.lop3.b32(d, A[0], A[1], A[2], 0x96)
        T.ptx.lop3.b32(d, A[0], A[1], A[2], 0xF0)
        A[3] = d


@T.function
def x_lop3_bool(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        p: T.uint32
        q: T.uint32
        T.ptx.lop3.or_.b32(d, p, A[0], A[1], A[2], 0x80, T.ptx.pred(q))
        A[3] = d


@T.function
def x_shifts(A: T.Tensor((4,), "uint32"), S: T.Tensor((4,), "int32")):
    with T.device_entry():
        d: T.uint32
        e: T.int32
        T.ptx.shf.l.clamp.b32(d, A[0], A[1], A[2])
        T.ptx.shf.r.wrap.b32(d, A[0], A[1], A[2])
        T.ptx.shl.b32(d, A[0], A[1])
        T.ptx.shr.s32(e, S[0], A[1])
        A[3] = d
        S[3] = e


@T.function
def x_ld_global(A: T.Tensor((16,), "uint32"), F: T.Tensor((16,), "float32")):
    with T.device_entry():
        d: T.uint32
        f: T.float32
        T.ptx.ld.global_.b32(d, T.address_of(A[0]))
        T.ptx.ld.global_.acquire.gpu.b32(d, T.address_of(A[1]))
        T.ptx.ld.global_.nc.L1__no_allocate.f32(f, T.address_of(F[2]))
        T.ptx.ld.relaxed.sys.global_.u32(d, T.address_of(A[3]))
        A[4] = d
        F[5] = f


@T.function
def x_ld_bracket(A: T.Tensor((16,), "uint32")):
    with T.device_entry():
        d: T.uint32
        T.ptx["ld.acquire.gpu.global.b32"](d, T.address_of(A[0]))
        T.ptx["ld.volatile.shared::cta.u32"](d, T.address_of(A[1]))
        A[2] = d


@T.function
def x_ld_vec(F: T.Tensor((16,), "float32")):
    with T.device_entry():
        r = T.alloc_local((4,), "float32")
        T.ptx.ld.global_.v4.f32(r[0], r[1], r[2], r[3], T.address_of(F[0]))
        F[4] = r[0] + r[3]


@T.function
def x_ld_sink(F: T.Tensor((16,), "float32")):
    with T.device_entry():
        r = T.alloc_local((8,), "float32")
        T.ptx.ld.global_.v8.f32(r[0], T.ptx.SINK, r[2], T.ptx.SINK, r[4], r[5], r[6], T.ptx.SINK, T.address_of(F[0]))
        F[4] = r[0]


@T.function
def x_ld_shared_addr(A: T.Tensor((16,), "uint32")):
    with T.device_entry():
        S = T.alloc_shared((64,), "uint32")
        d: T.uint32
        T.ptx.ld.shared__cta.b32(d, T.address_of(S[4]))
        T.ptx.ld.shared__cta.b32(d, T.ptx.addr(T.address_of(S[0]), 16))
        A[0] = d


@T.function
def x_st(A: T.Tensor((16,), "uint32"), F: T.Tensor((16,), "float32")):
    with T.device_entry():
        S = T.alloc_shared((64,), "float32")
        T.ptx.st.global_.b32(T.address_of(A[0]), A[1])
        T.ptx.st.release.gpu.global_.u32(T.address_of(A[2]), A[3])
        T.ptx.st.shared__cta.f32(T.address_of(S[0]), F[0])
        T.ptx.st.global_.v2.f32(T.address_of(F[4]), F[0], F[1])


@T.function
def x_st_pred(A: T.Tensor((16,), "uint32"), n: T.int32):
    with T.device_entry():
        T.ptx.st.global_.b32(T.address_of(A[0]), A[1], pred=n > 0)


@T.function
def x_ld_pred_keep(A: T.Tensor((16,), "uint32"), n: T.int32):
    with T.device_entry():
        d: T.uint32 = T.uint32(0)
        T.ptx.ld.global_.b32(d, T.address_of(A[0]), pred=n > 0, preserve_dst=True)
        A[1] = d


@T.function
def x_mbarrier_init_arrive(A: T.Tensor((4,), "uint64")):
    with T.device_entry():
        bar = T.alloc_shared((2,), "uint64")
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), 128)
        T.ptx.mbarrier.init.shared.b64(T.address_of(bar[1]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.ptx.mbarrier.arrive.shared.b64(T.address_of(bar[0]))
        T.ptx.mbarrier.arrive.shared.b64(T.address_of(bar[1]), T.uint32(2))
        T.ptx.mbarrier.arrive.release.cluster.shared__cluster.b64(T.address_of(bar[0]))


@T.function
def x_mbarrier_state(A: T.Tensor((4,), "uint64")):
    with T.device_entry():
        bar = T.alloc_shared((1,), "uint64")
        st: T.uint64
        T.ptx.mbarrier.arrive.shared__cta.b64(st, T.address_of(bar[0]))
        A[0] = st


@T.function
def x_mbarrier_expect_tx(A: T.Tensor((4,), "uint64")):
    with T.device_entry():
        bar = T.alloc_shared((1,), "uint64")
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar[0]), T.uint32(16384))
        T.ptx.mbarrier.expect_tx.relaxed.cta.shared__cta.b64(T.address_of(bar[0]), T.uint32(1024))


@T.function
def x_mbarrier_try_wait(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        bar = T.alloc_shared((1,), "uint64")
        done: T.uint32
        phase: T.int32 = 0
        T.ptx.mbarrier.try_wait.parity.shared__cta.b64(done, T.address_of(bar[0]), T.uint32(phase))
        T.ptx.mbarrier.test_wait.parity.acquire.cta.shared__cta.b64(done, T.address_of(bar[0]), T.uint32(1))
        T.ptx.mbarrier.try_wait.parity.shared__cta.b64(done, T.address_of(bar[0]), T.uint32(0), T.uint32(1000000))
        A[0] = done


@T.function
def x_fence(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        T.ptx.fence.proxy.async_.shared__cta()
        T.ptx.fence.proxy.async_()
        T.ptx.fence.acq_rel.gpu()
        T.ptx.fence.sc.sys()
        T.ptx["fence.proxy.async.global"]()


@T.function
def x_cp_async(A: T.Tensor((64,), "float32")):
    with T.device_entry():
        S = T.alloc_shared((64,), "float32")
        T.ptx.cp.async_.ca.shared.global_(T.address_of(S[0]), T.address_of(A[0]), 4)
        T.ptx.cp.async_.cg.shared.global_(T.address_of(S[4]), T.address_of(A[4]), 16)
        T.ptx.cp.async_.commit_group()
        T.ptx.cp.async_.wait_group(0)
        T.ptx.cp.async_.wait_all()


@T.function
def x_cp_async_bulk_tensor(A: T.Tensor((128, 128), "float16"), tmap: T.handle("tensormap")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        bar = T.alloc_shared((1,), "uint64")
        T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"](
            T.address_of(S[0, 0]), tmap, 0, 64, T.address_of(bar[0])
        )
        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"](tmap, 0, 64, T.address_of(S[0, 0]))
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group.read(0)


@T.function
def x_ldmatrix(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        S = T.alloc_shared((16, 16), "float16")
        r = T.alloc_local((4,), "uint32")
        T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared.b16(r[0], r[1], r[2], r[3], T.address_of(S[0, 0]))
        T.ptx.ldmatrix.sync.aligned.m8n8.x2.trans.shared__cta.b16(r[0], r[1], T.address_of(S[8, 0]))
        T.ptx["ldmatrix.sync.aligned.m8n8.x1.shared.b16"](r[0], T.address_of(S[0, 8]))
        A[0] = r[0]


@T.function
def x_stmatrix(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        S = T.alloc_shared((16, 16), "float16")
        r = T.alloc_local((4,), "uint32")
        T.ptx.stmatrix.sync.aligned.m8n8.x4.shared.b16(T.address_of(S[0, 0]), r[0], r[1], r[2], r[3])
        T.ptx.stmatrix.sync.aligned.m8n8.x1.trans.shared.b16(T.address_of(S[0, 0]), r[0])


@T.function
def x_mma(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        a = T.alloc_local((4,), "uint32")
        b = T.alloc_local((2,), "uint32")
        c = T.alloc_local((4,), "float32")
        T.ptx.mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32(
            c[0], c[1], c[2], c[3], a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], c[2], c[3]
        )
        A[0] = c[0]


@T.function
def x_setmaxnreg(A: T.Tensor((4,), "int32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=384)):
        wg = T.cuda.warpgroup_id()
        if wg == 0:
            T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
        else:
            T.ptx.setmaxnreg.inc.sync.aligned.u32(232)


@T.function
def x_elect_sync(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        d: T.uint32
        p: T.uint32
        T.ptx.elect_sync(d, p, T.uint32(FULL))
        A[0] = d


@T.function
def x_wgmma_sync(A: T.Tensor((4,), "float32")):
    with T.device_entry():
        T.ptx.wgmma.fence.sync.aligned()
        T.ptx.wgmma.commit_group.sync.aligned()
        T.ptx.wgmma.wait_group.sync.aligned(0)
        T.ptx.wgmma.wait_group.sync.aligned(1)


@T.function
def x_wgmma_mma_async(A: T.Tensor((4,), "float32"), da: T.uint64, db: T.uint64):
    with T.device_entry():
        acc = T.alloc_local((4,), "float32")
        scale: T.uint32 = T.uint32(1)
        T.ptx.wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16(
            acc[0], acc[1], acc[2], acc[3], da, db, T.ptx.pred(scale), 1, 1, 0, 0
        )
        A[0] = acc[0]


@T.function
def x_tcgen05_alloc(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        addr = T.alloc_shared((1,), "uint32")
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(addr[0]), T.uint32(256))
        T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(addr[0], T.uint32(256))
        T.ptx.tcgen05.alloc.cta_group__2.sync.aligned.shared__cta.b32(T.address_of(addr[0]), T.uint32(512))
        T.ptx.tcgen05.dealloc.cta_group__2.sync.aligned.b32(addr[0], T.uint32(512))


@T.function
def x_tcgen05_mma(A: T.Tensor((4,), "uint32"), da: T.uint64, db: T.uint64, idesc: T.uint32, taddr: T.uint32):
    with T.device_entry():
        acc: T.uint32 = T.uint32(0)
        m: T.uint32 = T.uint32(0)
        T.ptx.tcgen05.mma.cta_group__1.kind__f16(taddr, da, db, idesc, m, m, m, m, T.ptx.pred(acc))
        T.ptx.tcgen05.mma.cta_group__2.kind__tf32(taddr, da, db, idesc, m, m, m, m, m, m, m, m, T.ptx.pred(acc))


@T.function
def x_tcgen05_commit(A: T.Tensor((4,), "uint32")):
    with T.device_entry():
        bar = T.alloc_shared((1,), "uint64")
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(bar[0]))
        T.ptx.tcgen05.commit.cta_group__2.mbarrier__arrive__one.shared__cluster.multicast__cluster.b64(T.address_of(bar[0]), T.uint16(3))
        T.ptx.tcgen05.fence__before_thread_sync()
        T.ptx.tcgen05.fence__after_thread_sync()


@T.function
def x_tcgen05_ld_st(A: T.Tensor((8,), "uint32"), taddr: T.uint32):
    with T.device_entry():
        r = T.alloc_local((4,), "uint32")
        T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"](r[0], r[1], r[2], r[3], taddr)
        T.ptx.tcgen05.wait__ld.sync.aligned()
        T.ptx["tcgen05.st.sync.aligned.32x32b.x4.b32"](taddr, r[0], r[1], r[2], r[3])
        T.ptx["tcgen05.st.sync.aligned.16x64b.x1.unpack::16b.b32"](taddr, r[0])
        T.ptx.tcgen05.wait__st.sync.aligned()
        A[0] = r[0]


# ---------------------------------------------------------------------------
# t_: tile-level calls (T.cuda.tile.apply / T.cuda.tile.ewise)
# ---------------------------------------------------------------------------


@T.function
def t_apply_thread(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        R = T.alloc_local((8,), "float16")
        T.cuda.tile.apply("ld.global.b16", R[0:8], A[0, 0:8])


@T.function
def t_apply_warp_params(A: T.Tensor((64, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((16, 16), "float16")
        R = T.alloc_local((8,), "uint32")
        T.cuda.tile.apply("ldmatrix.sync.aligned.m8n8.x4.shared.b16", R[0:8], S[0:16, 0:16], scope="warp", group=1, repeat=(2, 1))


@T.function
def t_apply_scopes(A: T.Tensor((128, 64), "float16")):
    with T.device_entry():
        S = T.alloc_shared((128, 64), "float16")
        T.cuda.tile.apply("cp.async.cg.shared.global", S[0:128, 0:64], A[0:128, 0:64], scope="cta", cp_size=16)
        T.cuda.tile.apply("cp.async.ca.shared.global", S[0:64, 0:64], A[0:64, 0:64], scope="warpgroup")
        T.cuda.tile.apply("cp.async.ca.shared.global", S[0:16, 0:64], A[0:16, 0:64], scope="cluster", flag=True, name="x")


@T.function
def t_apply_tma(A: T.Tensor((128, 128), "float16")):
    with T.device_entry():
        S = T.alloc_shared((64, 64), "float16")
        bar = T.alloc_shared((1,), "uint64")
        T.cuda.tile.apply(
            "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes",
            S[0:64, 0:64],
            A[0:64, 64:128],
            mbar=T.address_of(bar[0]),
            box=(64, 64),
        )


@T.function(private=True)
def _ewise_add1(x: T.float16) -> T.float16:
    return x + T.float16(1)


@T.function(private=True)
def _ewise_fma(x: T.float32, y: T.float32, s: T.float32) -> T.float32:
    t: T.let = x * s
    return t + y


@T.function
def t_ewise_unary(A: T.Tensor((64,), "float16")):
    with T.device_entry():
        R = T.alloc_local((8,), "float16")
        Q = T.alloc_local((8,), "float16")
        T.cuda.tile.ewise(_ewise_add1, R[0:8], Q[0:8])


@T.function
def t_ewise_scalar_input(A: T.Tensor((64,), "float32"), s: T.float32):
    with T.device_entry():
        R = T.alloc_local((8,), "float32")
        X = T.alloc_local((8,), "float32")
        Y = T.alloc_local((8,), "float32")
        T.cuda.tile.ewise(_ewise_fma, R[0:8], X[0:8], Y[0:8], s, scope="warp")


# ---------------------------------------------------------------------------
# g_: larger kernel skeletons
# ---------------------------------------------------------------------------


@T.function
def g_tma_pipeline(A: T.Tensor((1024, 64), "float16"), B: T.Tensor((1024, 64), "float16"), tmap: T.handle("tensormap")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=8, block=128)):
        bx = T.cuda.block_idx("x")
        tid = T.cuda.thread_idx("x")
        S = T.alloc_shared((2, 64, 64), "float16")
        full = T.alloc_shared((2,), "uint64")
        empty = T.alloc_shared((2,), "uint64")
        if tid == 0:
            for s in T.unroll(2):
                T.ptx.mbarrier.init.shared__cta.b64(T.address_of(full[s]), T.uint32(1))
                T.ptx.mbarrier.init.shared__cta.b64(T.address_of(empty[s]), T.uint32(128))
            T.ptx.fence.proxy.async_.shared__cta()
        T.cuda.cta_sync()
        phase: T.int32 = 0
        for k in range(16):
            stage: T.let = k % 2
            if tid == 0:
                T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(full[stage]), T.uint32(8192))
                T.ptx["cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes"](
                    T.address_of(S[stage, 0, 0]), tmap, 0, bx * 64 + k, T.address_of(full[stage])
                )
            T.cuda.mbarrier_wait(T.address_of(full[stage]), phase)
            B[bx * 64 + tid % 64, tid // 64] = S[stage, tid % 64, tid // 64]
            T.ptx.mbarrier.arrive.shared.b64(T.address_of(empty[stage]))
            if stage == 1:
                phase = phase ^ 1


@T.function
def g_ws_gemm(A: T.Tensor((128, 64), "float16"), C: T.Tensor((128, 64), "float32"), da: T.uint64, db: T.uint64):
    with T.device_entry(
        launch=T.cuda.LaunchConfig(grid=1, block=384),
        kernel_attrs=T.cuda.KernelAttributes(min_blocks_per_sm=1),
    ):
        wg = T.cuda.warpgroup_id()
        tid = T.cuda.thread_in_warpgroup()
        bar = T.alloc_shared((2,), "uint64")
        acc = T.alloc_local((4,), "float32")
        if T.cuda.thread_rank() == 0:
            T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))
            T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[1]), T.uint32(256))
        T.cuda.cta_sync()
        if wg == 0:
            T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
            if T.cuda.elect_sync():
                for k in range(4):
                    T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar[0]), T.uint32(16384))
        else:
            T.ptx.setmaxnreg.inc.sync.aligned.u32(232)
            for i in T.unroll(4):
                acc[i] = T.float32(0)
            scale: T.uint32 = T.uint32(0)
            for k in range(4):
                T.cuda.mbarrier_wait(T.address_of(bar[0]), k % 2)
                T.ptx.wgmma.fence.sync.aligned()
                T.ptx.wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16(
                    acc[0], acc[1], acc[2], acc[3], da + T.Cast("uint64", k * 2), db, T.ptx.pred(scale), 1, 1, 0, 0
                )
                T.ptx.wgmma.commit_group.sync.aligned()
                T.ptx.wgmma.wait_group.sync.aligned(0)
                scale = T.uint32(1)
                T.ptx.mbarrier.arrive.shared.b64(T.address_of(bar[1]))
            for i in T.unroll(4):
                C[(wg - 1) * 64 + tid // 4, i] = acc[i]


@T.function
def g_tcgen05_gemm(C: T.Tensor((128, 256), "float32"), da: T.uint64, db: T.uint64):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128)):
        warp = T.cuda.warp_id()
        tmem_addr = T.alloc_shared((1,), "uint32")
        bar = T.alloc_shared((1,), "uint64")
        if warp == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(tmem_addr[0]), T.uint32(256))
            T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
        if T.cuda.thread_rank() == 0:
            T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))
        T.ptx.tcgen05.fence__before_thread_sync()
        T.cuda.cta_sync()
        T.ptx.tcgen05.fence__after_thread_sync()
        taddr: T.let = tmem_addr[0]
        idesc: T.uint32
        T.cuda.tcgen05_encode_instr_descriptor(
            T.address_of(idesc), d_dtype="float32", a_dtype="float16", b_dtype="float16", M=128, N=256, K=16, trans_a=False, trans_b=False
        )
        if warp == 0:
            if T.cuda.elect_sync():
                en: T.uint32 = T.uint32(0)
                m: T.uint32 = T.uint32(0)
                for k in range(4):
                    T.ptx.tcgen05.mma.cta_group__1.kind__f16(taddr, da, db, idesc, m, m, m, m, T.ptx.pred(en))
                    en = T.uint32(1)
                T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(bar[0]))
        T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)
        r = T.alloc_local((4,), "uint32")
        T.ptx["tcgen05.ld.sync.aligned.32x32b.x4.b32"](r[0], r[1], r[2], r[3], T.cuda.get_tmem_addr(taddr, warp * 32, 0))
        T.ptx.tcgen05.wait__ld.sync.aligned()
        for i in T.unroll(4):
            C[warp * 32 + T.cuda.lane_id(), i] = T.reinterpret(r[i], ty=T.float32)
        T.cuda.cta_sync()
        if warp == 0:
            T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr, T.uint32(256))


@T.function
def g_cp_async_double_buffer(A: T.Tensor((4096,), "float32"), B: T.Tensor((4096,), "float32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=16, block=256)):
        bx = T.cuda.block_idx("x")
        tx = T.cuda.thread_idx("x")
        S = T.alloc_shared((2, 256), "float32")
        T.ptx.cp.async_.ca.shared.global_(T.address_of(S[0, tx]), T.address_of(A[bx * 256 + tx]), 4)
        T.ptx.cp.async_.commit_group()
        for it in range(1, 4):
            T.ptx.cp.async_.ca.shared.global_(T.address_of(S[it % 2, tx]), T.address_of(A[it * 1024 + bx * 256 + tx]), 4)
            T.ptx.cp.async_.commit_group()
            T.ptx.cp.async_.wait_group(1)
            T.cuda.cta_sync()
            B[bx * 256 + tx] = B[bx * 256 + tx] + S[(it - 1) % 2, tx]
        T.ptx.cp.async_.wait_all()


@T.function
def g_mbarrier_helpers(A: T.Tensor((64, 64), "float16")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128)):
        pool = SMEMPool()
        tile = pool.alloc((64, 64), "float16", align=128)
        bars = MBarrier(pool, 2)
        tma = TMABar(pool, 2)
        pool.commit()
        bars.init(128)
        tma.init(1)
        T.cuda.cta_sync()
        tma.arrive(0, tx_count=8192)
        bars.arrive(1)
        bars.wait(1, 0)
        tile[0, 0] = A[0, 0]


@T.function
def g_reduction_warp(A: T.Tensor((1024,), "float32"), B: T.Tensor((32,), "float32")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=32, block=32)):
        bx = T.cuda.block_idx("x")
        lane = T.cuda.lane_id()
        acc: T.float32 = T.float32(0)
        for i in range(lane, 1024, 32):
            acc = acc + A[i]
        for off in T.unroll(5):
            acc = acc + T.cuda.__shfl_xor_sync(T.uint32(FULL), acc, T.shift_left(1, off), 32)
        if lane == 0:
            B[bx] = acc


@T.function
def g_vector_copy(A: T.Tensor((1024,), "float16"), B: T.Tensor((1024,), "float16")):
    with T.device_entry(launch=T.cuda.LaunchConfig(grid=4, block=32)):
        bx = T.cuda.block_idx("x")
        tx = T.cuda.thread_idx("x")
        for v in T.vectorized(8):
            B[bx * 256 + tx * 8 + v] = A[bx * 256 + tx * 8 + v]


# ---------------------------------------------------------------------------
# m_: IR modules
# ---------------------------------------------------------------------------


@I.ir_module
class m_helper_call:
    @T.function(private=True)
    def helper(x: T.int32) -> T.int32:
        return x + 1

    @T.function
    def main(A: T.Tensor((4,), "int32")):
        A[0] = m_helper_call.helper(A[1])


@I.ir_module
class m_order:
    @T.function
    def zeta(A: T.Tensor((4,), "int32")):
        A[0] = 1

    @T.function
    def main(A: T.Tensor((4,), "int32")):
        A[0] = 2

    @T.function
    def alpha(A: T.Tensor((4,), "int32")):
        A[0] = 3


@I.ir_module
class m_kernel_and_host:
    @T.function
    def kernel(A: T.Tensor((128,), "float32")):
        with T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128)):
            tx = T.cuda.thread_idx("x")
            A[tx] = A[tx] * T.float32(2)

    @T.function(private=True)
    def device_helper(x: T.float32) -> T.float32:
        return x * x


@I.ir_module
class m_module_attrs:
    I.module_attrs({"system_lib_prefix": "pre_", "flag": 1})

    @T.function
    def main(A: T.Tensor((4,), "int32")):
        A[0] = 0


@I.ir_module
class m_void_call:
    @T.function(private=True)
    def store1(A: T.Tensor((4,), "int32"), v: T.int32):
        A[0] = v

    @T.function
    def main(A: T.Tensor((4,), "int32")):
        m_void_call.store1(A, 5)


# ---------------------------------------------------------------------------
# z_: miscellaneous authoring conveniences (print as their expansion)
# ---------------------------------------------------------------------------

_TILE = 16


@T.function
def z_closure_constant(A: T.Tensor((_TILE * 4,), "int32")):
    for i in range(_TILE):
        A[i] = _TILE


@T.function
def z_constexpr_if(A: T.Tensor((4,), "int32")):
    if T.constexpr(_TILE > 8):
        A[0] = 1
    else:
        A[0] = 2


@T.inline
def _store_twice(A, v):
    A[0] = v
    A[1] = v


@T.function
def z_inline_macro(A: T.Tensor((4,), "int32"), n: T.int32):
    _store_twice(A, n + 1)


@T.function
def z_meta_var(A: T.Tensor((4,), "int32"), n: T.int32):
    two = T.meta_var(n * 2)
    A[0] = two + two


@T.function
def z_assume(A: T.Tensor((4,), "int32"), n: T.int32):
    T.assume(n > 0)
    A[0] = n


@T.function
def z_name_sanitize(A: T.Tensor((4,), "int32")):
    with T.launch_thread("threadIdx.x", 4) as tx:
        A[tx] = 0


@T.function
def z_unicode_string(A: T.Tensor((4,), "int32")):
    with T.device_entry():
        T.cuda.printf("caf\u00e9 %d\n", A[0])


@T.function
def z_flat_device_entry(A: T.Tensor((128,), "float32")):
    T.device_entry()
    A[0] = T.float32(1)


@T.function
def z_flat_launch_thread(A: T.Tensor((128,), "float32")):
    A[1] = T.float32(0)
    bx = T.launch_thread("blockIdx.x", 4)
    A[bx] = T.float32(1)


@T.function
def z_zero_dim(A: T.Tensor((), "float32"), B: T.Tensor((4,), "float32")):
    B[0] = A[()]


@T.function
def z_shuffle(A: T.Tensor((16,), "int32"), a: T.int32):
    A[0:4] = T.Shuffle([T.Ramp(a, 1, 4)], [3, 2, 1, 0])


@T.function
def z_let_expr(A: T.Tensor((16,), "int32"), a: T.int32):
    v = T.Var("v", "int32")
    A[0] = T.Let(v + 1, where={v: a * 2})


@T.function
def z_call_intrin(A: T.Tensor((16,), "uint32")):
    A[0] = T.call_intrin("tirx.cuda.elect_sync", ty=T.uint32)


@T.function
def z_shape_fold(A: T.Tensor((16, 8), "float32")):
    A[0, 0] = T.Cast("float32", A.shape[0] * A.shape[1])


@T.function
def z_func_attr_nested(A: T.Tensor((16,), "int32")):
    T.func_attr({"lst": [1, 2, 3], "d": {"x": 1}, "none": None, "neg": -5})
    A[0] = 0


@T.function
def z_tmem_view(A: T.Tensor((16,), "int32")):
    with T.device_entry():
        t = T.tmem((128, 256), "float32", allocated_addr=0, layout=T.TileLayout(T.S[(128, 256):(1 @ Ax.TLane, 1 @ Ax.TCol)]))
        u = t.sub[0:128, 64:128]
        A[0] = 0


@T.function
def z_dynamic_in_body(A: T.Tensor((16,), "int32"), n: T.int32):
    for i in range(n):
        m: T.let = T.min(i * 4, 15)
        A[m] = i


@T.function
def z_string_escapes(A: T.Tensor((4,), "int32")):
    with T.device_entry():
        T.cuda.printf("ctl\x01 q' bell\x07 del\x7f nbsp\xa0 e\u00e9 snow\u2603 emoji\U0001F600")
        T.cuda.printf("cr\r lf\n tab\t bs\\ dq\"")


@T.function
def z_float_format(B: T.Tensor((16,), "float32"), D: T.Tensor((4,), "float64"), H: T.Tensor((4,), "float16"), x: T.float32):
    B[0] = T.float32(0.33333333333) + x
    B[1] = T.float32(0.7) + x
    B[2] = T.float32(1e22) + x
    B[3] = T.float32(1.5e-7) + x
    B[4] = T.float32(3.4028234663852886e38) + x
    B[5] = x * T.float32(1e-45)
    B[6] = T.float32(-0.0)
    D[0] = T.float64(1.0 / 3.0)
    D[1] = T.float64(2.0**60)
    H[0] = T.float16(0.3333)
    B[7] = T.Cast("float32", T.float64(0.1))


@T.function
def z_negative_ints(A: T.Tensor((4,), "int32"), a: T.int32):
    A[0] = a * -3 + -7
    A[1] = a - -3
    A[2] = T.Cast("int32", T.int64(-5)) + T.Cast("int32", T.int8(-128))


# ---- END OF CORPUS ----


def _collect():
    from tvm_tirx.ir import IRModule
    from tvm_tirx.tirx import Function

    out = OrderedDict()
    for key, value in list(globals().items()):
        if key.startswith("_") or not isinstance(value, (Function, IRModule)):
            continue
        out[key] = value
    return out


CORPUS = _collect()
