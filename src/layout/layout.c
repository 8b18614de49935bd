/* Building layouts and asking about them: the arena builder, constructors,
 * well-formedness, size, span, the axes a layout uses, storage(),
 * broadcast(), the bare-swizzle test, and failure messages (ly_fail). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- failure */
bool ly_fail(LyCtx *c, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = tx_arena_alloc(c->arena, (size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(msg, (size_t)(n > 0 ? n : 0) + 1, fmt, again);
    va_end(again);
    c->err = msg;
    return false;
}

/* ---------------------------------------------------------------- builder */
static void *grow(LyCtx *c, void *items, int n, int *cap, size_t elem)
{
    if (n < *cap)
        return items;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = tx_arena_alloc(c->arena, elem * (size_t)ncap);
    if (n)
        memcpy(p, items, elem * (size_t)n);
    *cap = ncap;
    return p;
}

void lyb_shard(LyCtx *c, LyBuild *b, IrIter it)
{
    b->shard = grow(c, b->shard, b->nshard, &b->cap_shard, sizeof(IrIter));
    b->shard[b->nshard++] = it;
}

void lyb_replica(LyCtx *c, LyBuild *b, IrIter it)
{
    b->replica = grow(c, b->replica, b->nreplica, &b->cap_replica, sizeof(IrIter));
    b->replica[b->nreplica++] = it;
}

void lyb_offset(LyCtx *c, LyBuild *b, const char *axis, IrExpr *v)
{
    for (int i = 0; i < b->noffset; i++)
        if (strcmp(b->offset[i].axis, axis) == 0) {
            b->offset[i].value = ar_add(c->arena, b->offset[i].value, v);
            return;
        }
    b->offset = grow(c, b->offset, b->noffset, &b->cap_offset, sizeof(IrAxisOffset));
    b->offset[b->noffset++] = (IrAxisOffset){axis, v};
}

void lyb_shards(LyCtx *c, LyBuild *b, const IrIter *its, int n)
{
    for (int i = 0; i < n; i++)
        lyb_shard(c, b, its[i]);
}

void lyb_replicas(LyCtx *c, LyBuild *b, const IrIter *its, int n)
{
    for (int i = 0; i < n; i++)
        lyb_replica(c, b, its[i]);
}

void lyb_offsets(LyCtx *c, LyBuild *b, const IrAxisOffset *offs, int n)
{
    for (int i = 0; i < n; i++)
        lyb_offset(c, b, offs[i].axis, offs[i].value);
}

IrLayout *lyb_finish(LyCtx *c, LyBuild *b)
{
    for (int i = 1; i < b->noffset; i++) /* sorted by axis name, as IrLayout requires */
        for (int j = i; j > 0 && strcmp(b->offset[j - 1].axis, b->offset[j].axis) > 0; j--) {
            IrAxisOffset t = b->offset[j];
            b->offset[j] = b->offset[j - 1], b->offset[j - 1] = t;
        }
    IrLayout *l = TX_NEW(c->arena, IrLayout);
    l->kind = IR_LAYOUT_TILE;
    l->nshard = b->nshard, l->shard = b->shard;
    l->nreplica = b->nreplica, l->replica = b->replica;
    l->noffset = b->noffset, l->offset = b->offset;
    return l;
}

/* ---------------------------------------------------------------- constructors */
IrLayout *ly_tile(LyCtx *c, const IrIter *shard, int nshard, const IrIter *replica, int nreplica,
                  const IrAxisOffset *offset, int noffset)
{
    LyBuild b = {0};
    lyb_shards(c, &b, shard, nshard);
    lyb_replicas(c, &b, replica, nreplica);
    lyb_offsets(c, &b, offset, noffset);
    return lyb_finish(c, &b);
}

static bool swizzle_params(LyCtx *c, int per_element, int swizzle_len, int atom_len)
{
    if (per_element >= 0 && swizzle_len >= 0 && atom_len >= swizzle_len &&
        per_element + swizzle_len + atom_len <= 40)
        return true;
    return ly_fail(c, "ComposeLayout(%d, %d, %d, ...) is not a swizzle: it needs per_element >= 0, "
                      "swizzle_len >= 0, atom_len >= swizzle_len and at most 40 bits in all",
                   per_element, swizzle_len, atom_len);
}

bool ly_valid_swizzle(LyCtx *c, const IrLayout *l)
{
    if (l->kind != IR_LAYOUT_COMPOSE)
        return true;
    if (!l->tile || l->tile->kind != IR_LAYOUT_TILE)
        return ly_fail(c, "a ComposeLayout swizzles a TileLayout");
    return swizzle_params(c, l->per_element, l->swizzle_len, l->atom_len);
}

IrLayout *ly_compose(LyCtx *c, int per_element, int swizzle_len, int atom_len, bool swizzle_inner,
                     IrLayout *tile)
{
    if (!tile || tile->kind != IR_LAYOUT_TILE) {
        ly_fail(c, "a ComposeLayout swizzles a TileLayout");
        return NULL;
    }
    if (!swizzle_params(c, per_element, swizzle_len, atom_len))
        return NULL;
    IrLayout *l = TX_NEW(c->arena, IrLayout);
    l->kind = IR_LAYOUT_COMPOSE;
    l->per_element = per_element, l->swizzle_len = swizzle_len, l->atom_len = atom_len;
    l->swizzle_inner = swizzle_inner;
    l->tile = tile;
    return l;
}

IrLayout *ly_rewrap(LyCtx *c, const IrLayout *like, IrLayout *tile)
{
    if (!tile || like->kind != IR_LAYOUT_COMPOSE)
        return tile;
    return ly_compose(c, like->per_element, like->swizzle_len, like->atom_len, like->swizzle_inner,
                      tile);
}

IrLayout *ly_identity(LyCtx *c, IrExpr *n)
{
    IrIter it = ly_iter(n, ar_index_int_like(c->arena, n, 1), "m");
    return ly_tile(c, &it, 1, NULL, 0, NULL, 0);
}

IrLayout *ly_row_major(LyCtx *c, IrExpr *const *shape, int ndim)
{
    LyBuild b = {0};
    IrExpr *stride = ndim ? ar_index_int_like(c->arena, shape[0], 1) : NULL;
    for (int i = 0; i < ndim; i++)
        lyb_shard(c, &b, ly_iter(shape[i], NULL, "m"));
    for (int i = ndim - 1; i >= 0; i--) {
        b.shard[i].stride = stride;
        stride = ar_mul(c->arena, stride, shape[i]);
    }
    return lyb_finish(c, &b);
}

/* ---------------------------------------------------------------- well-formedness */
static bool known_axis(LyCtx *c, const IrLayout *l, const char *axis)
{
    if (ly_axis_find(axis) >= 0)
        return true;
    const char *near = ly_axis_nearest(axis);
    if (near)
        return ly_fail(c, "unknown layout axis '%s' in %s; did you mean '%s'?", axis,
                       ly_str(c, l), near);
    return ly_fail(c, "unknown layout axis '%s' in %s", axis, ly_str(c, l));
}

bool ly_check(LyCtx *c, const IrLayout *l)
{
    if (!ly_valid_swizzle(c, l))
        return false;
    const IrLayout *t = ly_tile_of(l);
    for (int i = 0; i < t->nshard; i++)
        if (!known_axis(c, l, t->shard[i].axis))
            return false;
    for (int i = 0; i < t->nreplica; i++)
        if (!known_axis(c, l, t->replica[i].axis))
            return false;
    for (int i = 0; i < t->noffset; i++)
        if (!known_axis(c, l, t->offset[i].axis))
            return false;
    IrScope inner, outer;
    c->err = NULL;
    return ly_scope(c, l, &inner, &outer) || c->err == NULL;
}

bool ly_is_bare_swizzle(const IrLayout *l)
{
    if (l->kind != IR_LAYOUT_COMPOSE)
        return false;
    const IrLayout *t = l->tile;
    return t->nshard == 1 && t->nreplica == 0 && t->noffset == 0 &&
           strcmp(t->shard[0].axis, "m") == 0 && ar_is_const(t->shard[0].stride, 1);
}

/* ---------------------------------------------------------------- queries */
static bool matches(const char *iter_axis, const char *axis)
{
    return axis ? strcmp(iter_axis, axis) == 0 : ly_axis_kind(iter_axis) == LY_MEMORY;
}

IrExpr *ly_size(LyCtx *c, const IrLayout *l, const char *axis)
{
    const IrLayout *t = ly_tile_of(l);
    IrExpr *n = ar_index_int(c->arena, 1);
    for (int i = 0; i < t->nshard; i++)
        if (!axis || strcmp(t->shard[i].axis, axis) == 0)
            n = ar_mul(c->arena, n, t->shard[i].extent);
    return n;
}

static IrExpr *iter_reach(LyCtx *c, IrIter it) /* (e - 1) * s */
{
    return ar_mul(c->arena, ar_sub(c->arena, it.extent, ar_index_int_like(c->arena, it.extent, 1)), it.stride);
}

IrExpr *ly_span(LyCtx *c, const IrLayout *l, const char *axis)
{
    const IrLayout *t = ly_tile_of(l);
    IrExpr *span = ar_index_int(c->arena, 1);
    for (int i = 0; i < t->nshard; i++)
        if (matches(t->shard[i].axis, axis))
            span = ar_add(c->arena, span, iter_reach(c, t->shard[i]));
    for (int i = 0; i < t->nreplica; i++)
        if (matches(t->replica[i].axis, axis))
            span = ar_add(c->arena, span, iter_reach(c, t->replica[i]));
    for (int i = 0; i < t->noffset; i++)
        if (matches(t->offset[i].axis, axis))
            span = ar_add(c->arena, span, t->offset[i].value);
    return span;
}

/* Insert an axis into a display-ordered list of distinct axes. */
static int add_axis(const char **list, int n, int max, const char *axis)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], axis) == 0)
            return n;
    if (n == max)
        return n;
    int j = n;
    for (; j > 0 && ly_axis_order(list[j - 1], axis) > 0; j--)
        list[j] = list[j - 1];
    list[j] = axis;
    return n + 1;
}

int ly_axes(const IrLayout *l, const char **out, int max)
{
    enum { MAX_AXES = 64 };
    const IrLayout *t = ly_tile_of(l);
    const char *list[MAX_AXES];
    int n = 0;
    for (int i = 0; i < t->nshard; i++)
        n = add_axis(list, n, MAX_AXES, t->shard[i].axis);
    for (int i = 0; i < t->nreplica; i++)
        n = add_axis(list, n, MAX_AXES, t->replica[i].axis);
    for (int i = 0; i < t->noffset; i++)
        n = add_axis(list, n, MAX_AXES, t->offset[i].axis);
    for (int i = 0; out && i < n && i < max; i++)
        out[i] = list[i];
    return n;
}

IrLayout *ly_storage(LyCtx *c, const IrLayout *l)
{
    const IrLayout *t = ly_tile_of(l);
    LyBuild b = {0};
    for (int i = 0; i < t->nshard; i++)
        if (ly_axis_kind(t->shard[i].axis) == LY_MEMORY)
            lyb_shard(c, &b, t->shard[i]);
    for (int i = 0; i < t->nreplica; i++)
        if (ly_axis_kind(t->replica[i].axis) == LY_MEMORY)
            lyb_replica(c, &b, t->replica[i]);
    for (int i = 0; i < t->noffset; i++)
        if (ly_axis_kind(t->offset[i].axis) == LY_MEMORY)
            lyb_offset(c, &b, t->offset[i].axis, t->offset[i].value);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}

IrLayout *ly_broadcast(LyCtx *c, const IrLayout *l, IrExpr *n, int position, const char *axis)
{
    const IrLayout *t = ly_tile_of(l);
    int at = position >= 0 ? position : t->nshard + 1 + position;
    if (at < 0 || at > t->nshard)
        return ly_fail(c, "broadcast: position %d is out of range for a layout of %d shard "
                          "iter%s (-%d to %d)", position, t->nshard, t->nshard == 1 ? "" : "s",
                       t->nshard + 1, t->nshard), NULL;
    LyBuild b = {0};
    lyb_shards(c, &b, t->shard, at);
    lyb_shard(c, &b, ly_iter(n, ar_index_int(c->arena, 0), axis ? axis : "m"));
    if (at < t->nshard) /* (no arithmetic on the NULL shards of an empty layout) */
        lyb_shards(c, &b, t->shard + at, t->nshard - at);
    lyb_replicas(c, &b, t->replica, t->nreplica);
    lyb_offsets(c, &b, t->offset, t->noffset);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}
