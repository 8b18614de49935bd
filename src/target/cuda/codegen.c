/* The CUDA code generator's driver: the generated file (a comment, the
 * prelude include, the NVSHMEM header's when the kernels use it,
 * T.cuda.func_call helpers, then one kernel per device function in module
 * order), kernel signatures (launch bounds from the
 * threadIdx extents, cluster dims, __restrict__ pointers, __grid_constant__
 * tensor maps, scalars), the dynamic shared memory declaration, and the output
 * primitives every file uses: indented lines, #line directives that map the C
 * lines to .tirx lines, errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "prelude.h"

/* ---------------------------------------------------------------- targets */

const char *cg_target(const Cg *cg)
{
    return ir_target_name(cg->opt->sm);
}

const char *cg_prelude_name(void)
{
    return "tirx_cuda.h";
}

const char *cg_prelude_text(void)
{
    return cg_prelude;
}

/* ---------------------------------------------------------------- errors and strings */

void cg_error(Cg *cg, TxCode code, TxSpan span, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tx_error(&cg->m->diags, code, span, "%s", msg);
    cg->failed = true;
}

TxSpan cg_span(const Cg *cg, const IrExpr *e)
{
    return e && e->span.src ? e->span : cg->span;
}

bool cg_require_sm(Cg *cg, TxSpan span, int sm, const char *what)
{
    if (cg->opt->sm >= sm)
        return true;
    cg_error(cg, TX_E_TARGET_FEATURE, span, "%s needs %s or newer; the target is %s", what,
             ir_target_name(sm), cg_target(cg));
    return false;
}

char *cg_strdup(Cg *cg, const char *s)
{
    return tx_arena_strdup(&cg->arena, s);
}

char *cg_printf(Cg *cg, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < (int)sizeof small)
        return cg_strdup(cg, small);
    char *s = tx_arena_alloc(&cg->arena, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

bool cg_const_int(const IrExpr *e, int64_t *v)
{
    if (!e || (e->kind != IR_E_INT && e->kind != IR_E_PYINT && e->kind != IR_E_PYBOOL))
        return false;
    *v = e->u.int_val;
    return true;
}

/* ---------------------------------------------------------------- output lines */

static void vline(Cg *cg, bool indent, const char *fmt, va_list ap)
{
    for (int i = 0; indent && i < cg->indent; i++)
        tx_buf_puts(cg->out, "  ");
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < (int)sizeof small) {
        tx_buf_puts(cg->out, small);
    } else {
        char *big = tx_arena_alloc(&cg->arena, (size_t)n + 1);
        vsnprintf(big, (size_t)n + 1, fmt, ap2);
        tx_buf_puts(cg->out, big);
    }
    va_end(ap2);
    tx_buf_putc(cg->out, '\n');
}

void cg_line(Cg *cg, const char *fmt, ...)
{
    /* with exact lines, a line of the current statement (or the brace
     * closing it) stays at its line, instead of counting on past it */
    if (cg->opt->exact_lines)
        cg_sync_line(cg, cg->span);
    va_list ap;
    va_start(ap, fmt);
    vline(cg, true, fmt, ap);
    va_end(ap);
}

void cg_raw_line(Cg *cg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(cg, false, fmt, ap);
    va_end(ap);
}

void cg_stmt_line(Cg *cg, const char *fmt, ...)
{
    cg->pending = (TxSpan){0};
    cg_sync_line(cg, cg->span);
    va_list ap;
    va_start(ap, fmt);
    vline(cg, true, fmt, ap);
    va_end(ap);
}

/* Bring cg->line up to date with the lines written since it was computed. */
static void count_lines(Cg *cg)
{
    for (size_t i = cg->line_pos; i < cg->out->len; i++)
        cg->line += cg->out->data[i] == '\n';
    cg->line_pos = cg->out->len;
}

void cg_sync_line_ahead(Cg *cg, TxSpan span, int ahead)
{
    cg->pending = (TxSpan){0};
    if (cg->opt->no_lines || !span.src)
        return;
    int line, col;
    tx_source_linecol(span.src, span.begin, &line, &col);
    if (line > ahead)
        line -= ahead;
    count_lines(cg);
    if (cg->line_src == span.src && cg->line == line)
        return;
    tx_buf_printf(cg->out, "#line %d \"", line);
    for (const char *p = span.src->name; *p; p++) {
        if (*p == '"' || *p == '\\')
            tx_buf_putc(cg->out, '\\');
        tx_buf_putc(cg->out, *p);
    }
    tx_buf_puts(cg->out, "\"\n");
    cg->line_src = span.src;
    cg->line = line;
    cg->line_pos = cg->out->len;
}

void cg_sync_line(Cg *cg, TxSpan span)
{
    cg_sync_line_ahead(cg, span, 0);
}

void cg_mark_line(Cg *cg, TxSpan span)
{
    cg->pending = span;
}

void cg_flush_line(Cg *cg)
{
    if (cg->pre == cg->out && cg->pending.src)
        cg_sync_line(cg, cg->pending);
}

/* ---------------------------------------------------------------- attributes */

static const IrExpr *func_attr(const IrFunc *f, const char *key)
{
    for (int i = 0; i < f->nattrs; i++)
        if (!strcmp(f->attrs[i].key, key))
            return f->attrs[i].value;
    return NULL;
}

bool cg_is_kernel(const IrFunc *f)
{
    int64_t v;
    return cg_const_int(func_attr(f, "calling_conv"), &v) && v == 2;
}

/* An integer attribute; false when absent, an error when not an integer. */
static bool int_attr(Cg *cg, const IrFunc *f, const char *key, int64_t *v)
{
    const IrExpr *e = func_attr(f, key);
    if (!e)
        return false;
    if (cg_const_int(e, v) && *v > 0)
        return true;
    cg_error(cg, TX_E_CODEGEN, f->span, "attribute \"%s\" must be a positive integer", key);
    return false;
}

/* ---------------------------------------------------------------- launch facts */

typedef struct LaunchScan {
    int64_t threads[3];  /* threadIdx.{x,y,z} extents, 0 while unseen */
    bool symbolic;       /* a threadIdx extent is not a constant */
    bool dyn_smem;       /* a shared.dyn allocation */
    bool traced;         /* a T.cuda.iket event (recorded under CgOptions.trace) */
    bool setmaxnreg;     /* a warp role's register count (setmaxnreg) */
} LaunchScan;

static bool scan_expr(IrVisitor *v, const IrExpr *e)
{
    LaunchScan *l = v->ctx;
    if (e->kind == IR_E_CALL && cg_is_iket_event(e->u.call.op))
        l->traced = true;
    if (ir_is_ptx_call(e, IR_PTX_setmaxnreg))
        l->setmaxnreg = true;
    return true;
}

static bool scan_stmt(IrVisitor *v, const IrStmt *s)
{
    LaunchScan *l = v->ctx;
    if (s->kind == IR_S_ALLOC && s->u.alloc.buffer->u.var.type->scope &&
        !strcmp(s->u.alloc.buffer->u.var.type->scope, "shared.dyn"))
        l->dyn_smem = true;
    const char *tag = s->kind == IR_S_ATTR && !strcmp(s->u.attr.key, "thread_extent")
                          ? s->u.attr.thread_tag
                          : NULL;
    if (tag && !strncmp(tag, "threadIdx.", 10) && tag[10] >= 'x' && tag[10] <= 'z' && !tag[11]) {
        int64_t n, axis = tag[10] - 'x';
        if (!cg_const_int(s->u.attr.value, &n))
            l->symbolic = true;
        else if (!l->threads[axis])
            l->threads[axis] = n;
    }
    return true;
}

static LaunchScan scan_launch(const IrFunc *f)
{
    LaunchScan l = {{0, 0, 0}, false, false, false, false};
    IrVisitor v = {.ctx = &l, .expr = scan_expr, .stmt = scan_stmt};
    ir_visit_stmt(&v, f->body);
    return l;
}

/* `__cluster_dims__(x, y, z) `: the cluster shape is fixed at compile time
 * (ptxas refuses it together with a maximum cluster size: then the shape is
 * the launch's only). */
static void cluster_dims(Cg *cg, const IrFunc *f, bool max_cluster_given, TxBuf *b)
{
    const IrExpr *cluster = func_attr(f, "tirx.cluster_dims");
    if (!cluster || !cg_require_sm(cg, f->span, 90, "a clustered kernel"))
        return;
    int64_t d[3] = {1, 1, 1};
    bool ok = cluster->kind == IR_E_LIST && cluster->u.list.n >= 1 && cluster->u.list.n <= 3;
    for (int i = 0; ok && i < cluster->u.list.n; i++)
        ok = cg_const_int(cluster->u.list.items[i], &d[i]) && d[i] >= 1;
    if (!ok)
        cg_error(cg, TX_E_CODEGEN, f->span,
                 "\"tirx.cluster_dims\" must be a list of up to three positive integers");
    else if (!max_cluster_given)
        tx_buf_printf(b, "__cluster_dims__(%lld, %lld, %lld) ", (long long)d[0], (long long)d[1],
                      (long long)d[2]);
}

/* `__launch_bounds__(n[, min[, max]]) ` or `__maxnreg__(r) `, after the cluster dims. */
static void kernel_qualifiers(Cg *cg, const IrFunc *f, const LaunchScan *l, TxBuf *b)
{
    int64_t regs, min_blocks, max_cluster;
    bool has_regs = int_attr(cg, f, "tirx.max_registers", &regs);
    bool has_min = int_attr(cg, f, "tirx.launch_bounds_min_blocks_per_sm", &min_blocks);
    bool has_max = int_attr(cg, f, "tirx.launch_bounds_max_blocks_per_cluster", &max_cluster);
    cluster_dims(cg, f, has_max, b);
    if (has_max && !has_min)
        cg_error(cg, TX_E_CODEGEN, f->span, "\"tirx.launch_bounds_max_blocks_per_cluster\" needs "
                                            "\"tirx.launch_bounds_min_blocks_per_sm\"");
    if (has_regs) {
        if (has_min)
            cg_error(cg, TX_E_CODEGEN, f->span,
                     "\"tirx.max_registers\" cannot be combined with launch bounds");
        tx_buf_printf(b, "__maxnreg__(%lld) ", (long long)regs);
        return;
    }
    int64_t threads = 1;
    for (int i = 0; i < 3; i++)
        threads *= l->threads[i] ? l->threads[i] : 1;
    if (l->symbolic || threads <= 1)
        return;
    tx_buf_printf(b, "__launch_bounds__(%lld", (long long)threads);
    /* ptxas ignores setmaxnreg unless it knows the registers at entry:
     * one CTA per SM, as the register check assumes (scope_ids.c) */
    if (has_min || l->setmaxnreg)
        tx_buf_printf(b, ", %lld", (long long)(has_min ? min_blocks : 1));
    if (has_max)
        tx_buf_printf(b, ", %lld", (long long)max_cluster);
    tx_buf_puts(b, ") ");
}

static bool noalias(const IrFunc *f)
{
    int64_t v;
    return !cg_const_int(func_attr(f, "tir.noalias"), &v) || v;
}

/* `float* __restrict__ A`, `const __grid_constant__ CUtensorMap A_map`, `int n` */
static void param_text(Cg *cg, const IrFunc *f, const IrExpr *p, TxBuf *b)
{
    const IrType *t = p->u.var.type;
    const char *name = cg_define(cg, p);
    if (t->kind == IR_TY_TENSORMAP)
        tx_buf_printf(b, "const __grid_constant__ CUtensorMap %s", name);
    else if (t->kind == IR_TY_PTR || t->kind == IR_TY_BUFFER)
        tx_buf_printf(b, "%s%s %s", cg_var_ctype(cg, t, cg_span(cg, p)), noalias(f) ? " __restrict__" : "",
                      name);
    else
        tx_buf_printf(b, "%s %s", cg_var_ctype(cg, t, cg_span(cg, p)), name);
}

static bool is_identifier(const char *s)
{
    if (!s || !*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* ---------------------------------------------------------------- kernels */

static void free_kernel_state(Cg *cg)
{
    ir_ptrmap_free(&cg->names);
    ir_ptrmap_free(&cg->nonneg);
    ir_ptrmap_free(&cg->scalars);
    ir_ptrmap_free(&cg->tiles);
    ir_ptrmap_free(&cg->empty);
    ir_ptrmap_free(&cg->vec_temps);
}

static void emit_kernel(Cg *cg, const IrFunc *f)
{
    free_kernel_state(cg);
    cg_names_reset(cg);
    cg->span = f->span;
    if (!is_identifier(f->name))
        cg_error(cg, TX_E_CODEGEN, f->span, "kernel name '%s' is not a C identifier", f->name);
    LaunchScan launch = scan_launch(f);
    TxBuf sig = {0};
    tx_buf_puts(&sig, "extern \"C\" __global__ void ");
    kernel_qualifiers(cg, f, &launch, &sig);
    tx_buf_printf(&sig, "%s(", f->name);
    cg_nameset_add(cg, &cg->used, f->name);
    for (int i = 0; i < f->nparams; i++) {
        tx_buf_puts(&sig, i ? ", " : "");
        param_text(cg, f, f->params[i], &sig);
    }
    tx_buf_puts(&sig, ") {");
    cg_stmt_line(cg, "%s", sig.data);
    tx_buf_free(&sig);
    cg_scan_register_tiles(cg, f);
    cg->indent = 1;
    if (launch.dyn_smem)
        cg_line(cg, "extern __shared__ __align__(1024) uint8_t dyn_smem[];");
    if (launch.traced && cg->opt->trace)
        cg_line(cg, "TxTrace tx_trace = tx_trace_open(tx_trace_buf); // this warp's trace records");
    cg_stmt(cg, f->body);
    cg->indent = 0;
    cg_line(cg, "}");
    cg_line(cg, "%s", "");
}

/* The kernel whose name follows after's (the first when after is NULL): the
 * output is in name order, whatever the order of the module's functions. */
static const IrFunc *next_kernel(const IrModule *m, const IrFunc *after)
{
    const IrFunc *best = NULL;
    for (int i = 0; i < m->nfuncs; i++) {
        const IrFunc *f = m->funcs[i];
        if (cg_is_kernel(f) && (!after || strcmp(f->name, after->name) > 0) &&
            (!best || strcmp(f->name, best->name) < 0))
            best = f;
    }
    return best;
}

bool cg_emit_module(IrModule *m, const CgOptions *o, TxBuf *out)
{
    Cg cg = {.m = m, .opt = o};
    TxBuf kernels = {0};
    tx_arena_init(&cg.arena);
    if (!strcmp(ir_target_name(o->sm), "sm_?")) {
        tx_error(&m->diags, TX_E_TARGET, (TxSpan){0},
                 "the CUDA code generator targets sm_80, sm_90a and sm_100a");
        tx_arena_free(&cg.arena);
        return false;
    }
    cg.out = cg.pre = &kernels;
    for (const IrFunc *f = next_kernel(m, NULL); f; f = next_kernel(m, f))
        emit_kernel(&cg, f);
    tx_buf_printf(out, "// Generated by tirx for %s.\n#include \"%s\"\n", ir_target_name(o->sm),
                  cg_prelude_name());
    if (cg_uses_nvshmem(m, NULL))
        tx_buf_printf(out, "#include \"%s\"\n", cg_nvshmem_header_name());
    tx_buf_putc(out, '\n');
    if (cg.helpers.len)
        tx_buf_puts(out, cg.helpers.data);
    cg_trace_globals(&cg, out);
    if (kernels.len)
        tx_buf_puts(out, kernels.data);
    free_kernel_state(&cg);
    tx_buf_free(&kernels);
    tx_buf_free(&cg.helpers);
    tx_buf_free(&cg.trace_names);
    tx_arena_free(&cg.arena);
    return !cg.failed;
}
