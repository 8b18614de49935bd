/* Statements of a device function as C: thread launches (const locals read
 * from blockIdx/threadIdx/the cluster registers), memory (static and dynamic
 * shared memory, local arrays and scalars, typed pointers over parameters),
 * Bind as const locals, loops with their unroll pragmas (a while loop always
 * gets `#pragma unroll 1`), if/else chains, stores (vector stores through
 * vector.c) and calls. Each statement first points #line at its source. */
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- helpers */

static void body(Cg *cg, const IrStmt *s)
{
    cg->indent++;
    cg_stmt(cg, s);
    cg->indent--;
}

static bool const_size(Cg *cg, const IrExpr *buf, int64_t *n)
{
    const IrBufferType *bt = ir_buf(buf);
    *n = 1;
    for (int i = 0; i < bt->ndim; i++) {
        int64_t d;
        if (!cg_const_int(bt->shape[i], &d)) {
            cg_error(cg, TX_E_CODEGEN, cg_span(cg, buf),
                     "buffer '%s' needs a constant size in device code",
                     buf->u.var.name);
            return false;
        }
        *n *= d;
    }
    return true;
}

/* A sub-byte buffer's n elements as the bytes that hold them. */
static int64_t storage_elems(IrDType t, int64_t n)
{
    return cg_subbyte(t) ? (n * t.bits + 7) / 8 : n;
}

static int64_t elem_bytes(IrDType t)
{
    int64_t bits = (int64_t)t.bits * (t.lanes ? t.lanes : 1);
    return bits >= 8 ? bits / 8 : 1;
}

/* ---------------------------------------------------------------- memory */

static void alloc_shared(Cg *cg, const IrExpr *buf, const char *type)
{
    int64_t n;
    if (!const_size(cg, buf, &n))
        return;
    int align = ir_buf(buf)->align > 0 ? ir_buf(buf)->align : 16;
    n = storage_elems(buf->u.var.type->dtype, n);
    cg_stmt_line(cg, "__shared__ alignas(%d) %s %s[%lld];", align, type, cg_define(cg, buf), (long long)n);
}

/* ---------------------------------------------------------------- register tiles */

/* A local array read and written only element by element at constant
 * indices (an unrolled accumulator or fragment) is written as one variable
 * per element: NVVM promotes a large local array to registers slowly (the
 * dense MLA decode's 128-float accumulator cost it 22 s of a build, its 128
 * variables 3 s), and the PTX is the same but for register numbers. An
 * array whose address is taken, or indexed by a variable or a vector, stays
 * an array. */
typedef struct TileScan {
    IrPtrMap size;  /* candidate -> its element count */
    IrPtrMap uses;  /* candidate -> uses of its variable or its views' */
    IrPtrMap fixed; /* candidate -> uses as a scalar element at a constant index */
    IrPtrMap view;  /* a view declared over a candidate's data (same type) -> the candidate */
} TileScan;

/* The array a buffer is, or is a view of (decl_stmt gives such a view the
 * array's name: its indices are the array's). */
static const void *tile_root(const TileScan *t, const void *buf)
{
    uintptr_t root;
    return ir_ptrmap_get(&t->view, buf, &root) ? (const void *)root : buf;
}

/* The array a DeclBuffer views with its own name (same_pointer), or NULL. */
static const IrExpr *viewed_array(const IrStmt *s)
{
    const IrExpr *buf = s->u.decl.buffer, *data = s->u.decl.data;
    if (!data || data->kind != IR_E_CALL || data->u.call.op != IR_OP_BUFFER_DATA)
        return NULL;
    const IrExpr *root = data->u.call.args[0];
    return ir_is_buffer(root) && ir_dtype_eq(root->u.var.type->dtype, buf->u.var.type->dtype)
               ? root
               : NULL;
}

static void count(IrPtrMap *m, const void *key)
{
    uintptr_t n = 0;
    ir_ptrmap_get(m, key, &n);
    ir_ptrmap_put(m, key, n + 1);
}

/* One access of buf: counted when it is a scalar element at a constant index. */
static void scan_access(TileScan *t, const void *buf, const IrExpr *index, IrDType value)
{
    uintptr_t n;
    int64_t i;
    buf = tile_root(t, buf);
    if (ir_ptrmap_get(&t->size, buf, &n) && index->dtype.lanes == 1 && cg_const_int(index, &i) &&
        i >= 0 && (uintptr_t)i < n && ir_dtype_eq(value, ((const IrExpr *)buf)->u.var.type->dtype))
        count(&t->fixed, buf);
}

static void scan_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    TileScan *t = v->ctx;
    const char *scope = var->u.var.type ? var->u.var.type->scope : NULL;
    if (!where || where->kind != IR_S_ALLOC || !scope || strcmp(scope, "local") ||
        cg_subbyte(var->u.var.type->dtype))
        return;
    const IrBufferType *bt = ir_buf(var);
    int64_t n = 1, d;
    for (int i = 0; i < bt->ndim; i++)
        if (!cg_const_int(bt->shape[i], &d) || d <= 0 || (n *= d) > 4096)
            return;
    if (n > 1)
        ir_ptrmap_put(&t->size, var, (uintptr_t)n);
}

static bool scan_expr(IrVisitor *v, const IrExpr *e)
{
    TileScan *t = v->ctx;
    if (e->kind == IR_E_VAR && ir_ptrmap_get(&t->size, tile_root(t, e), NULL))
        count(&t->uses, tile_root(t, e));
    else if (e->kind == IR_E_LOAD && e->u.access.n == 1 && !e->u.access.predicate)
        scan_access(t, e->u.access.buffer, e->u.access.indices[0], e->dtype);
    else if (e->kind == IR_E_CALL && e->u.call.op == IR_OP_ADDRESS_OF && e->u.call.nargs == 1 &&
             e->u.call.args[0]->kind == IR_E_LOAD)
        count(&t->uses, tile_root(t, e->u.call.args[0]->u.access.buffer)); /* an array */
    return true;
}

static bool scan_stmt(IrVisitor *v, const IrStmt *s)
{
    TileScan *t = v->ctx;
    const IrExpr *root;
    if (s->kind == IR_S_STORE && s->u.store.n == 1 && !s->u.store.predicate) {
        scan_access(t, s->u.store.buffer, s->u.store.indices[0], s->u.store.value->dtype);
    } else if (s->kind == IR_S_DECL && (root = viewed_array(s)) &&
               ir_ptrmap_get(&t->size, tile_root(t, root), NULL)) {
        ir_ptrmap_put(&t->view, s->u.decl.buffer, (uintptr_t)tile_root(t, root));
        count(&t->fixed, tile_root(t, root)); /* its data's use of the array's variable */
    }
    return true;
}

void cg_scan_register_tiles(Cg *cg, const IrFunc *f)
{
    TileScan t = {0};
    IrVisitor v = {.ctx = &t, .def = scan_def, .expr = scan_expr, .stmt = scan_stmt};
    ir_visit_stmt(&v, f->body);
    for (int i = 0; i < t.size.cap; i++) {
        const void *buf = t.size.slots[i].key;
        uintptr_t uses = 0, fixed = 0;
        if (buf && ir_ptrmap_get(&t.uses, buf, &uses) && ir_ptrmap_get(&t.fixed, buf, &fixed) &&
            uses == fixed)
            ir_ptrmap_put(&cg->tiles, buf, 0);
    }
    ir_ptrmap_free(&t.size);
    ir_ptrmap_free(&t.uses);
    ir_ptrmap_free(&t.fixed);
    ir_ptrmap_free(&t.view);
}

/* The tile's elements as variables `name_i`, eight declared to a line. */
static void alloc_tile(Cg *cg, const IrExpr *buf, const char *type, int64_t n)
{
    const char *name = cg_define(cg, buf);
    const char **elems = TX_NEW_ARRAY(&cg->arena, const char *, n);
    TxBuf line = {0};
    for (int64_t i = 0; i < n; i++) {
        const char *e = cg_printf(cg, "%s_%lld", name, (long long)i);
        for (int k = 1; !cg_nameset_add(cg, &cg->used, e); k++)
            e = cg_printf(cg, "%s_%lld_%d", name, (long long)i, k);
        elems[i] = e;
        tx_buf_printf(&line, "%s%s", i % 8 ? ", " : "", e);
        if (i % 8 == 7 || i == n - 1) {
            cg_stmt_line(cg, "%s %s;", type, line.data);
            line.len = 0;
            line.data[0] = '\0';
        }
    }
    tx_buf_free(&line);
    ir_ptrmap_put(&cg->tiles, buf, (uintptr_t)elems);
}

static void alloc_local(Cg *cg, const IrExpr *buf, const char *type)
{
    int64_t n;
    if (!const_size(cg, buf, &n))
        return;
    /* no elements (a size that a -D constant turned to 0): nothing can be
     * read or written, and C has no zero-length arrays */
    if (n == 0) {
        ir_ptrmap_put(&cg->empty, buf, 1);
        return;
    }
    if (ir_ptrmap_get(&cg->tiles, buf, NULL)) {
        alloc_tile(cg, buf, type, n);
        return;
    }
    const char *name = cg_define(cg, buf);
    if (cg_subbyte(buf->u.var.type->dtype)) {
        cg_stmt_line(cg, "%s %s[%lld];", type, name,
                     (long long)storage_elems(buf->u.var.type->dtype, n));
        return;
    }
    if (n == 1) {
        ir_ptrmap_put(&cg->scalars, buf, 1);
        cg_stmt_line(cg, "%s %s;", type, name);
        return;
    }
    /* aligned for the widest vector access that tiles it, up to the 32 bytes
     * of tx_vec<uint32_t, 8> (a vec_256b copy's registers) */
    int64_t bytes = n * elem_bytes(buf->u.var.type->dtype), align = elem_bytes(buf->u.var.type->dtype);
    while (align < 32 && bytes % (align * 2) == 0 && align * 2 <= ir_buf(buf)->align)
        align *= 2;
    if (align > elem_bytes(buf->u.var.type->dtype))
        cg_stmt_line(cg, "alignas(%lld) %s %s[%lld];", (long long)align, type, name, (long long)n);
    else
        cg_stmt_line(cg, "%s %s[%lld];", type, name, (long long)n);
}

static void alloc_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *buf = s->u.alloc.buffer;
    const char *scope = buf->u.var.type->scope ? buf->u.var.type->scope : "global";
    const char *type = cg_storage_ctype(cg, buf->u.var.type->dtype, s->span);
    if (!strcmp(scope, "shared.dyn"))
        cg_stmt_line(cg, "%s* %s = (%s*)dyn_smem;", type, cg_define(cg, buf), type);
    else if (!strcmp(scope, "shared"))
        alloc_shared(cg, buf, type);
    else if (!strcmp(scope, "local"))
        alloc_local(cg, buf, type);
    else {
        cg_error(cg, TX_E_CODEGEN, s->span,
                 "buffer '%s' in scope '%s' cannot be allocated in a CUDA kernel",
                 buf->u.var.name, scope);
        cg_define(cg, buf); /* its uses are not also reported as undefined */
    }
}

/* Whether data is already a pointer of the buffer's element type: the buffer
 * then shares its name. */
static const char *same_pointer(Cg *cg, const IrExpr *buf, const IrExpr *data)
{
    IrDType t = buf->u.var.type->dtype;
    if (data->kind == IR_E_VAR && data->u.var.type->kind == IR_TY_PTR &&
        ir_dtype_eq(data->u.var.type->dtype, t))
        return cg_name(cg, data);
    if (data->kind == IR_E_CALL && data->u.call.op == IR_OP_BUFFER_DATA) {
        const IrExpr *root = data->u.call.args[0];
        if (ir_is_buffer(root) && ir_dtype_eq(root->u.var.type->dtype, t) &&
            !ir_ptrmap_get(&cg->scalars, root, NULL))
            return cg_name(cg, root);
    }
    return NULL;
}

static void decl_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *buf = s->u.decl.buffer, *data = s->u.decl.data;
    if (!data)
        return; /* tensor memory: addressed through T.ptx.tcgen05 operands only */
    const IrExpr *root = viewed_array(s);
    uintptr_t tile;
    if (root && ir_ptrmap_get(&cg->tiles, root, &tile) && tile) {
        ir_ptrmap_put(&cg->tiles, buf, tile); /* the scan found it a view of a tile */
        return;
    }
    const char *alias = same_pointer(cg, buf, data);
    if (alias) {
        cg_alias(cg, buf, alias);
        return;
    }
    const char *type = cg_storage_ctype(cg, buf->u.var.type->dtype, s->span);
    const IrType *pt = data->kind == IR_E_CALL ? data->u.call.ptr_type : NULL;
    if (pt && pt->kind == IR_TY_PTR && ir_dtype_eq(pt->dtype, buf->u.var.type->dtype)) {
        char *value = cg_expr_str(cg, data, CG_PREC_NONE); /* already a T* */
        cg_stmt_line(cg, "%s* %s = %s;", type, cg_define(cg, buf), value);
        return;
    }
    char *value = cg_expr_str(cg, data, CG_PREC_UNARY);
    cg_stmt_line(cg, "%s* %s = (%s*)%s;", type, cg_define(cg, buf), type, value);
}

/* ---------------------------------------------------------------- bindings */

static void bind_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *var = s->u.bind.var, *value = s->u.bind.value;
    const char *type = cg_var_ctype(cg, var->u.var.type, s->span);
    char *text = cg_expr_str(cg, value, CG_PREC_NONE);
    const char *name = cg_define(cg, var);
    if (cg_is_nonneg(cg, value))
        ir_ptrmap_put(&cg->nonneg, var, 1);
    cg_stmt_line(cg, "%s%s %s = %s;", strchr(type, '*') ? "" : "const ", type, name, text);
}

/* The value of a launch tag: blockIdx.x, threadIdx.y, tx_cluster_ctaid_z(), ... */
static const char *thread_source(Cg *cg, const char *tag, TxSpan span)
{
    static const char *const direct[] = {"blockIdx.", "threadIdx."};
    size_t n = strlen(tag);
    char axis = n ? tag[n - 1] : 0;
    bool xyz = n > 2 && tag[n - 2] == '.' && axis >= 'x' && axis <= 'z';
    for (size_t i = 0; xyz && i < TX_ARRAY_LEN(direct); i++)
        if (!strncmp(tag, direct[i], strlen(direct[i])) && n == strlen(direct[i]) + 1)
            return tag;
    if (xyz && !strncmp(tag, "clusterCtaIdx.", 14) && n == 15)
        return cg_require_sm(cg, span, 90, "a cluster launch") ? cg_printf(cg, "tx_cluster_ctaid_%c()", axis) : "0";
    if (xyz && !strncmp(tag, "clusterIdx.", 11) && n == 12)
        return cg_require_sm(cg, span, 90, "a cluster launch") ? cg_printf(cg, "tx_clusterid_%c()", axis) : "0";
    cg_error(cg, TX_E_CODEGEN, span, "unknown thread tag '%s'", tag);
    return "0";
}

static void attr_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *var = s->u.attr.node;
    if (!strcmp(s->u.attr.key, "thread_extent") && var && var->kind == IR_E_VAR &&
        !ir_ptrmap_get(&cg->names, var, NULL)) {
        const char *tag = s->u.attr.thread_tag ? s->u.attr.thread_tag : var->u.var.name;
        const char *src = thread_source(cg, tag, s->span);
        const char *type = cg_ctype_at(cg, var->dtype, s->span);
        cg_stmt_line(cg, "const %s %s = %s;", type, cg_define(cg, var), src);
        ir_ptrmap_put(&cg->nonneg, var, 1);
    }
    cg_stmt(cg, s->u.attr.body);
}

/* ---------------------------------------------------------------- control flow */

static const IrExpr *annotation(const IrStmt *s, const char *key)
{
    for (int i = 0; i < s->u.loop.nannot; i++)
        if (!strcmp(s->u.loop.annot[i].key, key))
            return s->u.loop.annot[i].value;
    return NULL;
}

/* The loop's `#pragma unroll` argument: "1", "4", "" (full), or NULL for none. */
static const char *unroll_arg(Cg *cg, const IrStmt *s)
{
    const IrExpr *off = annotation(s, "disable_unroll"), *on = annotation(s, "pragma_unroll");
    int64_t v;
    if (off && cg_const_int(off, &v) && v)
        return "1";
    if (on && on->kind != IR_E_PYBOOL && on->dtype.code != IR_DT_BOOL && cg_const_int(on, &v))
        return cg_printf(cg, "%lld", (long long)v);
    if ((on && cg_const_int(on, &v) && v) || s->u.loop.kind == IR_FOR_UNROLLED)
        return "";
    return NULL;
}

static bool has_unroll_pragma(Cg *cg, const IrStmt *s)
{
    return unroll_arg(cg, s) != NULL;
}

static void unroll_pragma(Cg *cg, const IrStmt *s)
{
    const char *arg = unroll_arg(cg, s);
    if (arg)
        cg_raw_line(cg, "#pragma unroll%s%s", *arg ? " " : "", arg);
}

static void for_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *var = s->u.loop.var, *min = s->u.loop.min, *ext = s->u.loop.extent;
    int64_t zero = -1, step = 1;
    if (s->u.loop.kind == IR_FOR_THREAD_BINDING) {
        cg_error(cg, TX_E_CODEGEN, s->span,
                 "a thread_binding loop cannot appear in device code (LowerTIRxOpaque "
                                            "turns it into a launch)");
        return;
    }
    if (s->u.loop.step && (!cg_const_int(s->u.loop.step, &step) || step <= 0))
        cg_error(cg, TX_E_CODEGEN, s->span, "a device loop needs a constant positive step");
    char *lo = cg_expr_str(cg, min, CG_PREC_NONE);
    TxBuf end = {0};
    if (cg_const_int(min, &zero) && zero == 0) {
        cg_expr(cg, ext, &end, CG_PREC_REL + 1);
    } else {
        cg_expr(cg, min, &end, CG_PREC_ADD);
        tx_buf_puts(&end, " + ");
        cg_expr(cg, ext, &end, CG_PREC_ADD + 1);
    }
    const char *type = cg_ctype_at(cg, var->dtype, s->span), *name = cg_define(cg, var);
    if (cg_is_nonneg(cg, min))
        ir_ptrmap_put(&cg->nonneg, var, 1);
    if (has_unroll_pragma(cg, s))
        cg_sync_line_ahead(cg, s->span, 1);
    unroll_pragma(cg, s);
    const char *inc = step == 1 ? cg_printf(cg, "++%s", name) : cg_printf(cg, "%s += %lld", name, (long long)step);
    cg_stmt_line(cg, "for (%s %s = %s; %s < %s; %s) {", type, name, lo, name, end.data, inc);
    tx_buf_free(&end);
    body(cg, s->u.loop.body);
    cg_line(cg, "}");
}

static void while_stmt(Cg *cg, const IrStmt *s)
{
    TxBuf temps = {0}, *saved = cg->pre;
    cg->pre = &temps;
    cg->indent++;
    char *cond = cg_expr_str(cg, s->u.whl.cond, CG_PREC_NONE);
    cg->indent--;
    cg->pre = saved;
    cg_sync_line_ahead(cg, s->span, 1);
    cg_raw_line(cg, "#pragma unroll 1");
    if (!temps.len) {
        cg_stmt_line(cg, "while (%s) {", cond);
    } else {
        cg_stmt_line(cg, "while (true) {");
        tx_buf_puts(cg->out, temps.data);
        cg->indent++;
        cg_line(cg, "if (!(%s)) break;", cond);
        cg->indent--;
    }
    tx_buf_free(&temps);
    body(cg, s->u.whl.body);
    cg_line(cg, "}");
}

/* `if (c) {` ... `} else if (c2) {` ... `} else {` ... `}` */
static void if_stmt(Cg *cg, const IrStmt *s)
{
    char *cond = cg_expr_str(cg, s->u.ifs.cond, CG_PREC_NONE);
    cg_stmt_line(cg, "if (%s) {", cond);
    for (;;) {
        body(cg, s->u.ifs.then_s);
        const IrStmt *e = s->u.ifs.else_s;
        if (!e)
            break;
        if (e->kind == IR_S_IF) {
            TxBuf temps = {0}, *saved = cg->pre;
            cg->pre = &temps;
            char *c2 = cg_expr_str(cg, e->u.ifs.cond, CG_PREC_NONE);
            cg->pre = saved;
            if (!temps.len) {
                TxSpan outer = cg->span;
                cg->span = e->span.src ? e->span : outer;
                cg_stmt_line(cg, "} else if (%s) {", c2);
                cg->span = outer;
                s = e;
                continue;
            }
            tx_buf_free(&temps);
        }
        cg_line(cg, "} else {");
        body(cg, e);
        break;
    }
    cg_line(cg, "}");
}

/* ---------------------------------------------------------------- the rest */

static void eval_stmt(Cg *cg, const IrStmt *s)
{
    const IrExpr *e = s->u.eval;
    if (e->kind == IR_E_INT || e->kind == IR_E_PYINT)
        return;
    if (e->kind == IR_E_CALL && cg_call_stmt(cg, e))
        return;
    cg_stmt_line(cg, "%s;", cg_expr_str(cg, e, CG_PREC_NONE));
}

static void store_stmt(Cg *cg, const IrStmt *s)
{
    if (s->u.store.n != 1 || !ir_is_buffer(s->u.store.buffer)) {
        cg_error(cg, TX_E_CODEGEN, s->span,
                 "a buffer store in device code must have one index (FlattenBuffer "
                                            "has not run)");
        return;
    }
    if (s->u.store.predicate)
        cg_error(cg, TX_E_CODEGEN, s->span,
                 "predicated stores are not supported by the CUDA code generator");
    if (s->u.store.indices[0]->dtype.lanes > 1) {
        cg_vec_store(cg, s);
        return;
    }
    TxBuf lv = {0};
    char *value = cg_expr_str(cg, s->u.store.value, CG_PREC_NONE);
    int sub = cg_subbyte(s->u.store.buffer->u.var.type->dtype);
    if (sub) {
        char *index = cg_expr_str(cg, s->u.store.indices[0], CG_PREC_NONE);
        cg_stmt_line(cg, "tx_st_bits<%s>(%s, %s, (%s).bits);",
                     cg_bits_args(s->u.store.buffer->u.var.type->dtype),
                     cg_name(cg, s->u.store.buffer), index, value);
        return;
    }
    cg_element(cg, s->u.store.buffer, s->u.store.indices[0], &lv);
    cg_stmt_line(cg, "%s = %s;", lv.data, value);
    tx_buf_free(&lv);
}

static void not_on_device(Cg *cg, const IrStmt *s, const char *what)
{
    cg_error(cg, TX_E_CODEGEN, s->span, "%s cannot appear in a CUDA device function", what);
}

void cg_stmt(Cg *cg, const IrStmt *s)
{
    TxSpan outer = cg->span;
    if (s->span.src)
        cg->span = s->span;
    ir_ptrmap_free(&cg->vec_temps);
    if (s->kind != IR_S_SEQ && s->kind != IR_S_FOR && s->kind != IR_S_WHILE && s->kind != IR_S_IF &&
        s->kind != IR_S_ATTR)
        cg_mark_line(cg, cg->span); /* before any temporary the statement needs */
    switch (s->kind) {
    case IR_S_SEQ:
        for (int i = 0; i < s->u.seq.n; i++)
            cg_stmt(cg, s->u.seq.stmts[i]);
        break;
    case IR_S_BIND: bind_stmt(cg, s); break;
    case IR_S_ALLOC: alloc_stmt(cg, s); break;
    case IR_S_DECL: decl_stmt(cg, s); break;
    case IR_S_FOR: for_stmt(cg, s); break;
    case IR_S_WHILE: while_stmt(cg, s); break;
    case IR_S_IF: if_stmt(cg, s); break;
    case IR_S_ATTR: attr_stmt(cg, s); break;
    case IR_S_EVAL: eval_stmt(cg, s); break;
    case IR_S_STORE: store_stmt(cg, s); break;
    case IR_S_BREAK: cg_stmt_line(cg, "break;"); break;
    case IR_S_CONTINUE: cg_stmt_line(cg, "continue;"); break;
    case IR_S_ASSERT: not_on_device(cg, s, "an assert"); break;
    case IR_S_RETURN: cg_stmt_line(cg, "return;"); break; /* the thread leaves the kernel */
    case IR_S_SCOPEID: not_on_device(cg, s, "a scope-id definition (LowerTIRxOpaque has not run)"); break;
    case IR_S_TILE: not_on_device(cg, s, "a tile-primitive call (TilePrimitiveDispatch has not run)"); break;
    default: TX_UNREACHABLE();
    }
    cg->span = outer;
}
