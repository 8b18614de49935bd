/* The verifier's launch checks. Scope ids: at most max_dims ids per
 * definition, int32/uint32 ids, positive integer extents, `preferred=` only on
 * cta_id_in_cluster, the hardware-fixed extents (lane_id 32, thread_id_in_wg
 * 128; warp_id_in_wg at most 4, fewer making the CTA one partial warpgroup),
 * one set of extents per kind in a function, and the threads per CTA that
 * thread_id, warp_id (x32), warpgroup_id (x128, or x32 per warp of a partial
 * warpgroup) and a partial warp_id_in_wg (x32) imply agreeing, at most 1024,
 * a multiple of 32 when warp-level ids are used; at
 * most 16 CTAs per cluster; cta_id_in_pair only with cta_id_in_cluster; CUDA's
 * grid and block dimension limits. Thread-binding loops: one extent per
 * threadIdx/blockIdx tag and the same limits; launch_thread attrs likewise. TMA descriptor encodes
 * (`T.call_packed("runtime.cuTensorMapEncodeTiled", ...)`): the driver's
 * limits on rank, argument count, dimensions, strides, box, element strides,
 * interleave and swizzle, checked where the arguments are constants. */
#include "verify_launch.h"

#include <stdio.h>
#include <string.h>

#define MAX_CTA_THREADS 1024
#define MAX_CLUSTER_CTAS 16
#define WARP_SIZE 32

bool ir_const_int(const IrExpr *e, int64_t *v)
{
    if (!e || (e->kind != IR_E_INT && e->kind != IR_E_PYINT))
        return false;
    *v = e->u.int_val;
    return true;
}

static const char *scopeid_name(IrScopeIdKind k) { return ir_scopeids[k].name; }

/* "[128, 2]" for the constant extents of a definition, "[...]" otherwise. */
static const char *extents_str(const IrStmt *s, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < s->u.scopeid.nvars && n < len; i++) {
        int64_t v;
        const char *sep = i ? ", " : "";
        if (ir_const_int(s->u.scopeid.extents[i], &v))
            n += (size_t)snprintf(buf + n, len - n, "%s%lld", sep, (long long)v);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s...", sep);
    }
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

/* A product of extents past every limit, standing for all such (the true
 * product may not fit an int64). */
#define HUGE_EXTENT (1LL << 40)

/* The product of a definition's extents when all are positive constants, else
 * -1; HUGE_EXTENT when it exceeds 2^31. */
static int64_t extent_product(const IrStmt *s)
{
    int64_t p = 1, v;
    bool huge = false;
    for (int i = 0; s && i < s->u.scopeid.nvars; i++) {
        if (!ir_const_int(s->u.scopeid.extents[i], &v) || v <= 0)
            return -1;
        huge = huge || v > (1LL << 31) || (p *= v) > (1LL << 31);
    }
    return !s ? -1 : huge ? HUGE_EXTENT : p;
}

void ir_launch_begin(IrLaunchCheck *l, TxDiags *diags)
{
    memset(l, 0, sizeof *l);
    l->diags = diags;
}

/* ---------------------------------------------------------------- one definition */
static void check_scopeid_vars(IrLaunchCheck *l, const IrStmt *s)
{
    IrScopeIdKind k = s->u.scopeid.kind;
    if (s->u.scopeid.nvars > ir_scopeids[k].max_dims)
        tx_error(l->diags, TX_E_LAUNCH, s->span, "T.%s defines at most %d id%s, not %d",
                 scopeid_name(k),
                 ir_scopeids[k].max_dims, ir_scopeids[k].max_dims == 1 ? "" : "s",
                 s->u.scopeid.nvars);
    for (int i = 0; i < s->u.scopeid.nvars; i++) {
        IrDType t = s->u.scopeid.vars[i]->dtype;
        if (!ir_dtype_eq(t, IR_INT32) && !ir_dtype_eq(t, IR_UINT32)) {
            char b[IR_DTYPE_STR_MAX];
            tx_error(l->diags, TX_E_LAUNCH, s->span, "scope ids are int32 or uint32, not %s",
                     ir_dtype_str(t, b));
            return;
        }
    }
}

static void check_scopeid_extents(IrLaunchCheck *l, const IrStmt *s)
{
    IrScopeIdKind k = s->u.scopeid.kind;
    static const int fixed[IR_SCOPEID_COUNT] = {
        [IR_SCOPEID_LANE_ID] = WARP_SIZE, [IR_SCOPEID_THREAD_ID_IN_WG] = 4 * WARP_SIZE};
    for (int i = 0; i < s->u.scopeid.nvars; i++) {
        const IrExpr *e = s->u.scopeid.extents[i];
        int64_t v;
        if (e && !ir_dtype_is_int(e->dtype))
            tx_error(l->diags, TX_E_LAUNCH, s->span, "the extents of T.%s must be integers",
                     scopeid_name(k));
        else if (ir_const_int(e, &v) && v <= 0)
            tx_error(l->diags, TX_E_LAUNCH, s->span,
                     "the extents of T.%s must be positive, not %lld",
                     scopeid_name(k), (long long)v);
        else if (ir_const_int(e, &v) && k == IR_SCOPEID_WARP_ID_IN_WG && v > 4)
            tx_error(l->diags, TX_E_LAUNCH, s->span,
                     "the extent of T.warp_id_in_wg must be at most 4 (the "
                     "warps of a warpgroup), not %lld", (long long)v);
        else if (ir_const_int(e, &v) && fixed[k] && v != fixed[k])
            tx_error(l->diags, TX_E_LAUNCH, s->span, "the extent of T.%s must be %d, not %lld",
                     scopeid_name(k), fixed[k], (long long)v);
    }
    if (s->u.scopeid.npreferred && k != IR_SCOPEID_CTA_ID_IN_CLUSTER)
        tx_error(l->diags, TX_E_LAUNCH, s->span,
                 "preferred= is only allowed on T.cta_id_in_cluster");
}

/* Two definitions of one kind must agree on every extent that both give as a
 * constant. */
static void check_same_extents(IrLaunchCheck *l, const IrStmt *prev, const IrStmt *s)
{
    bool same = prev->u.scopeid.nvars == s->u.scopeid.nvars;
    for (int i = 0; same && i < s->u.scopeid.nvars; i++) {
        int64_t a, b;
        if (ir_const_int(prev->u.scopeid.extents[i], &a) &&
            ir_const_int(s->u.scopeid.extents[i], &b))
            same = a == b;
    }
    if (same)
        return;
    char b1[128], b2[128];
    tx_error(l->diags, TX_E_LAUNCH, s->span, "inconsistent extents for T.%s: %s here, %s before",
             scopeid_name(s->u.scopeid.kind), extents_str(s, b1, sizeof b1),
             extents_str(prev, b2, sizeof b2));
    tx_note(l->diags, prev->span, "T.%s was defined here", scopeid_name(s->u.scopeid.kind));
}

void ir_launch_scopeid(IrLaunchCheck *l, const IrStmt *s)
{
    IrScopeIdKind k = s->u.scopeid.kind;
    if ((unsigned)k >= IR_SCOPEID_COUNT)
        return;
    if (!l->first[k])
        l->first[k] = s;
    check_scopeid_vars(l, s);
    if (!s->u.scopeid.extents)
        return; /* deferred: `T.cta_id()` */
    check_scopeid_extents(l, s);
    if (l->scopeid[k])
        check_same_extents(l, l->scopeid[k], s);
    else
        l->scopeid[k] = s, l->order[k] = ++l->nset;
}

/* ---------------------------------------------------------------- the whole function */
/* "256", "128 x 2 = 256", "4 x 32 = 128" (per_id 32): a definition's constant
 * extents and their product times per_id (no product past 2^31). */
static void extents_formula(const IrStmt *s, int per_id, char *buf, size_t len)
{
    size_t n = 0;
    for (int i = 0; i < s->u.scopeid.nvars && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? " x " : "",
                              (long long)s->u.scopeid.extents[i]->u.int_val);
    if (per_id > 1 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " x %d", per_id);
    int64_t p = extent_product(s);
    if ((per_id > 1 || s->u.scopeid.nvars > 1) && p < HUGE_EXTENT && n < len)
        snprintf(buf + n, len - n, " = %lld", (long long)(p * per_id));
}

/* One way of knowing the threads per CTA: thread_id's extents, warp_id's x 32
 * or warpgroup_id's x 128. */
typedef struct ThreadCount {
    IrScopeIdKind kind;
    const IrStmt *from;
    int64_t threads;
    char formula[96]; /* "256", "128 x 2 = 256", "4 x 32 = 128" */
} ThreadCount;

/* The warps of a warpgroup: 4, or T.warp_id_in_wg's extent when it is less
 * (a CTA of one partial warpgroup). */
static int64_t warps_per_warpgroup(const IrLaunchCheck *l)
{
    int64_t n = extent_product(l->scopeid[IR_SCOPEID_WARP_ID_IN_WG]);
    return n > 0 && n < 4 ? n : 4;
}

static bool thread_count(const IrLaunchCheck *l, IrScopeIdKind kind, ThreadCount *c)
{
    int per_id = kind == IR_SCOPEID_WARP_ID || kind == IR_SCOPEID_WARP_ID_IN_WG ? WARP_SIZE
               : kind == IR_SCOPEID_WARPGROUP_ID ? (int)warps_per_warpgroup(l) * WARP_SIZE : 1;
    const IrStmt *s = l->scopeid[kind];
    int64_t ids = extent_product(s);
    if (ids < 0 || (kind == IR_SCOPEID_WARP_ID_IN_WG && ids >= 4))
        return false;
    *c = (ThreadCount){kind, s, ids * per_id, ""};
    extents_formula(s, per_id, c->formula, sizeof c->formula);
    return true;
}

static bool uses_warp_ids(const IrLaunchCheck *l)
{
    return l->first[IR_SCOPEID_WARP_ID] || l->first[IR_SCOPEID_LANE_ID] ||
           l->first[IR_SCOPEID_WARPGROUP_ID] || l->first[IR_SCOPEID_WARP_ID_IN_WG] ||
           l->first[IR_SCOPEID_THREAD_ID_IN_WG];
}

static void report_mismatch(IrLaunchCheck *l, const ThreadCount *earlier, const ThreadCount *c)
{
    bool with_lanes = earlier->kind == IR_SCOPEID_WARP_ID && l->first[IR_SCOPEID_LANE_ID];
    tx_error(l->diags, TX_E_LAUNCH, c->from->span,
             "inconsistent thread extents: T.%s says %s threads per CTA, but T.%s%s give%s %s",
             scopeid_name(c->kind), c->formula, scopeid_name(earlier->kind),
             with_lanes ? " and T.lane_id" : "", with_lanes ? "" : "s", earlier->formula);
    tx_note(l->diags, earlier->from->span, "the %s count is set here",
            earlier->kind == IR_SCOPEID_THREAD_ID ? "thread"
            : earlier->kind == IR_SCOPEID_WARPGROUP_ID ? "warpgroup" : "warp");
}

/* The ways of counting threads, in definition order, must agree. */
static void check_thread_counts(IrLaunchCheck *l)
{
    ThreadCount counts[4];
    int n = 0;
    IrScopeIdKind kinds[] = {IR_SCOPEID_THREAD_ID, IR_SCOPEID_WARP_ID, IR_SCOPEID_WARPGROUP_ID,
                             IR_SCOPEID_WARP_ID_IN_WG};
    for (size_t i = 0; i < TX_ARRAY_LEN(kinds); i++)
        if (thread_count(l, kinds[i], &counts[n]))
            n++;
    for (int i = 1; i < n; i++) /* insertion sort by definition order */
        for (int j = i; j > 0 && l->order[counts[j].kind] < l->order[counts[j - 1].kind]; j--) {
            ThreadCount t = counts[j];
            counts[j] = counts[j - 1], counts[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        const ThreadCount *c = &counts[i];
        if (c->threads > MAX_CTA_THREADS)
            tx_error(l->diags, TX_E_LAUNCH, c->from->span,
                     "too many threads per CTA: %s (the limit is %d)",
                     c->formula, MAX_CTA_THREADS);
        else if (i > 0 && c->threads != counts[0].threads)
            report_mismatch(l, &counts[0], c);
        else if (c->threads % WARP_SIZE && uses_warp_ids(l))
            tx_error(l->diags, TX_E_LAUNCH, c->from->span,
                     "T.%s gives %lld threads per CTA, not a multiple of %d, but the kernel "
                     "uses warp-level ids", scopeid_name(c->kind), (long long)c->threads,
                     WARP_SIZE);
    }
}

static void check_dim_limits(IrLaunchCheck *l, const IrStmt *s, const int64_t *max)
{
    for (int i = 0; s && i < s->u.scopeid.nvars && i < 3; i++) {
        int64_t v;
        if (ir_const_int(s->u.scopeid.extents[i], &v) && v > max[i])
            tx_error(l->diags, TX_E_LAUNCH, s->span,
                     "T.%s: dimension %c is %lld, the limit is %lld",
                     scopeid_name(s->u.scopeid.kind), "xyz"[i], (long long)v, (long long)max[i]);
    }
}

static void check_cluster(IrLaunchCheck *l)
{
    const IrStmt *s = l->scopeid[IR_SCOPEID_CTA_ID_IN_CLUSTER];
    char ctas[96];
    if (extent_product(s) > MAX_CLUSTER_CTAS) {
        extents_formula(s, 1, ctas, sizeof ctas);
        tx_error(l->diags, TX_E_LAUNCH, s->span,
                 "T.cta_id_in_cluster gives %s CTAs per cluster, the limit is %d", ctas,
                 MAX_CLUSTER_CTAS);
    }
    if (l->first[IR_SCOPEID_CTA_ID_IN_PAIR] && !l->first[IR_SCOPEID_CTA_ID_IN_CLUSTER])
        tx_error(l->diags, TX_E_LAUNCH, l->first[IR_SCOPEID_CTA_ID_IN_PAIR]->span,
                 "T.cta_id_in_pair needs T.cta_id_in_cluster in the same kernel");
}

/* ---------------------------------------------------------------- thread-binding loops */
static const char *const launch_tags[IR_LAUNCH_NTAGS] = {
    "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z"};
static const int64_t tag_limit[IR_LAUNCH_NTAGS] = {1024, 1024, 64, 2147483647, 65535, 65535};

int64_t ir_launch_tag_limit(const char *tag)
{
    for (int t = 0; t < IR_LAUNCH_NTAGS; t++)
        if (!strcmp(tag, launch_tags[t]))
            return tag_limit[t];
    return -1;
}

void ir_launch_thread_tag(IrLaunchCheck *l, const IrStmt *s, const char *tag, const IrExpr *extent)
{
    int64_t ext;
    if (!tag || !ir_const_int(extent, &ext))
        return;
    for (int t = 0; t < IR_LAUNCH_NTAGS; t++) {
        if (strcmp(tag, launch_tags[t]))
            continue;
        if (ext > tag_limit[t])
            tx_error(l->diags, TX_E_LAUNCH, s->span, "%s extent %lld exceeds the limit %lld",
                     launch_tags[t],
                     (long long)ext, (long long)tag_limit[t]);
        if (!l->tag_stmt[t]) {
            l->tag_stmt[t] = s, l->tag_extent[t] = ext;
        } else if (l->tag_extent[t] != ext) {
            tx_error(l->diags, TX_E_LAUNCH, s->span,
                     "inconsistent extents for %s: %lld here, %lld before",
                     launch_tags[t], (long long)ext, (long long)l->tag_extent[t]);
            tx_note(l->diags, l->tag_stmt[t]->span, "%s was bound here", launch_tags[t]);
        }
    }
}

static void check_tag_threads(IrLaunchCheck *l)
{
    int64_t threads = 1;
    bool huge = false; /* past 2^31, where the product may not fit */
    const IrStmt *last = NULL;
    for (int t = 0; t < 3; t++)
        if (l->tag_stmt[t]) {
            int64_t e = l->tag_extent[t];
            huge = huge || e > (1LL << 31) || (threads *= e) > (1LL << 31);
            last = l->tag_stmt[t];
        }
    if (last && (huge || threads > MAX_CTA_THREADS))
        tx_error(l->diags, TX_E_LAUNCH, last->span,
                 "threadIdx extents give %s%lld threads per CTA, the limit is %d",
                 huge ? "more than " : "", huge ? 1LL << 31 : (long long)threads, MAX_CTA_THREADS);
}

void ir_launch_end(IrLaunchCheck *l)
{
    static const int64_t thread_max[3] = {1024, 1024, 64};
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    if (extent_product(l->scopeid[IR_SCOPEID_THREAD_ID]) <= MAX_CTA_THREADS)
        check_dim_limits(l, l->scopeid[IR_SCOPEID_THREAD_ID], thread_max); /* else: too many */
    check_dim_limits(l, l->scopeid[IR_SCOPEID_CTA_ID], grid_max);
    check_thread_counts(l);
    check_cluster(l);
    check_tag_threads(l);
}

/* ---------------------------------------------------------------- TMA descriptors */
/* The arguments of one encode, split into CUDA's groups (dimension 0 innermost). */
typedef struct TmaArgs {
    int64_t rank, elem_bytes; /* elem_bytes 0: unknown or sub-byte */
    IrExpr *const *dims, *const *strides, *const *box, *const *elem_strides;
    IrExpr *const *enums; /* interleave, swizzle, l2 promotion, oob fill */
} TmaArgs;

typedef struct TmaCheck {
    TxDiags *diags;
    TxSpan span;
} TmaCheck;

/* Each constant in xs[0..n) must lie in [lo, hi] and be a multiple of `mult`. */
static void tma_range(const TmaCheck *c, IrExpr *const *xs, int n, const char *what, int64_t lo,
                      int64_t hi, int64_t mult)
{
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (!ir_const_int(xs[i], &v))
            continue;
        if (v < lo || v > hi)
            tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                     "TMA descriptor: %s %d is %lld, must be in %lld..%lld",
                     what, i, (long long)v, (long long)lo, (long long)hi);
        else if (v % mult)
            tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                     "TMA descriptor: %s %d is %lld, not a multiple of %lld",
                     what, i, (long long)v, (long long)mult);
    }
}

static int64_t const_or(const IrExpr *e, int64_t fallback)
{
    int64_t v;
    return ir_const_int(e, &v) ? v : fallback;
}

static void tma_modes(const TmaCheck *c, const TmaArgs *t)
{
    static const char *const names[4] = {"interleave", "swizzle", "L2 promotion", "OOB fill"};
    static const int64_t max[4] = {2, 3, 3, 1};
    for (int i = 0; i < 4; i++)
        tma_range(c, &t->enums[i], 1, names[i], 0, max[i], 1);
    int64_t interleave = const_or(t->enums[0], 0), swizzle = const_or(t->enums[1], 0);
    int64_t box0 = const_or(t->box[0], -1);
    if (interleave && t->rank < 3)
        tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                 "TMA descriptor: interleave needs rank >= 3, not %lld",
                 (long long)t->rank);
    if (interleave == 2 && swizzle != 1)
        tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                 "TMA descriptor: 32-byte interleave needs the 32-byte "
                 "swizzle");
    if (interleave || box0 < 0 || !t->elem_bytes)
        return;
    int64_t inner = box0 * t->elem_bytes;
    if (inner % 16)
        tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                 "TMA descriptor: the inner box is %lld bytes, not a "
                 "multiple of 16", (long long)inner);
    else if (swizzle > 0 && swizzle <= 3 && inner > (16LL << swizzle))
        tx_error(c->diags, TX_E_TMA_DESCRIPTOR, c->span,
                 "TMA descriptor: the inner box is %lld bytes, wider than "
                 "the %lld-byte swizzle", (long long)inner, 16LL << swizzle);
}

static int64_t tma_elem_bytes(const IrExpr *dtype)
{
    IrDType t;
    if (!dtype || dtype->kind != IR_E_STR || !dtype->u.str ||
        !ir_dtype_parse(dtype->u.str, strlen(dtype->u.str), &t) || t.bits < 8)
        return 0;
    return t.bits / 8;
}

void ir_launch_tma_call(TxDiags *diags, const IrExpr *call, TxSpan span)
{
    const IrCall *c = &call->u.call;
    if (c->nargs < 5 || c->args[0]->kind != IR_E_STR || !c->args[0]->u.str ||
        strcmp(c->args[0]->u.str, "runtime.cuTensorMapEncodeTiled"))
        return;
    TmaCheck chk = {diags, span};
    TmaArgs t = {.elem_bytes = tma_elem_bytes(c->args[2])};
    if (!ir_const_int(c->args[3], &t.rank))
        return;
    if (t.rank < 1 || t.rank > 5) {
        tx_error(diags, TX_E_TMA_DESCRIPTOR, span, "TMA descriptor: rank %lld, must be in 1..5",
                 (long long)t.rank);
        return;
    }
    int r = (int)t.rank, want = 4 * r + 8;
    if (c->nargs != want && c->nargs != want + 1) {
        tx_error(diags, TX_E_TMA_DESCRIPTOR, span,
                 "TMA descriptor: an encode of rank %d takes %d arguments, not %d",
                 r, want, c->nargs);
        return;
    }
    t.dims = c->args + 5, t.strides = t.dims + r, t.box = t.strides + (r - 1);
    t.elem_strides = t.box + r, t.enums = t.elem_strides + r;
    int64_t stride_mult = const_or(t.enums[0], 0) == 2 ? 32 : 16;
    tma_range(&chk, t.dims, r, "global dimension", 1, 1LL << 32, 1);
    tma_range(&chk, t.strides, r - 1, "global stride", 0, (1LL << 40) - 1, stride_mult);
    tma_range(&chk, t.box, r, "box dimension", 1, 256, 1);
    tma_range(&chk, t.elem_strides, r, "element stride", 1, 8, 1);
    tma_modes(&chk, &t);
}
