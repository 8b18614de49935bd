/* codegen_ptx_sweep: every entry of the PTX instruction table, as the CUDA
 * code generator renders it, through ptxas.
 *
 *   codegen_ptx_sweep ARCH [KEY...]
 *
 * For each table entry (or each KEY) that ARCH has, builds a kernel `ptx_KEY`
 * (by hand, in the IR contract's form) whose body is one T.ptx call: every
 * required modifier slot takes its first choice that makes the entry valid
 * and available, optional ones are left out, register operands are elements
 * of local arrays of the operand type's width, addresses point into shared or
 * global memory (a tensor-map parameter for TMA), immediates take their first
 * allowed value. All kernels are generated with cg_emit_module and compiled
 * with NVRTC at once; when that fails, each kernel alone, to name the entries
 * ptxas rejects. The table is certified against a newer ptxas than the CUDA
 * 13.0 toolkit of CI, and its cross-slot rules admit a few combinations ptxas
 * refuses; those entries are listed below with the reason. Exit 0 when every
 * other entry compiled, 1 with the failures listed, 2 for a usage error, 77
 * without NVRTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/irb.h"
#include "ir/ptx.h"
#include "runtime/runtime.h"
#include "target/cuda/codegen.h"

#define MAX_OPERANDS 64
#define NREGS 512

/* The buffers every kernel declares, by register width. */
typedef struct Kernel {
    IrModule *m;
    IrExpr *shared, *global, *tmap;
    IrExpr *r16, *r32, *r64, *f32, *f64;
    int next; /* the next unused register element */
} Kernel;

/* Entries ptxas 13.0 rejects in the form the sweep builds, and why. */
typedef struct Known {
    const char *key, *why;
} Known;

static const Known known_failures[] = {
    /* newer than CUDA 13.0's ptxas (the table follows PTX ISA 9.x) */
    {"clmad", "newer PTX"},
    {"ld_proxy_readonly", "newer PTX"},
    {"prefetch_valid_addr", "newer PTX"},
    {"mbarrier_check_layout", "newer PTX"},
    {"cvt_s2f6x2_f32", "newer PTX"},
    {"cvt_s2f6x2_bf16x2", "newer PTX"},
    {"cvt_bf16x2_s2f6x2", "newer PTX"},
    {"multimem_cp_async_bulk", "newer PTX"},
    {"multimem_cp_reduce_async_bulk", "newer PTX"},
    {"multimem_cp_reduce_async_bulk_f32_noftz", "newer PTX"},
    {"multimem_red_async", "newer PTX"},
    {"multimem_st_async", "newer PTX"},
    {"atom_f32_noftz", "newer PTX (.noftz)"},
    {"atom_f32_noftz_bitbucket", "newer PTX (.noftz)"},
    {"atom_vec_f32_noftz", "newer PTX (.noftz)"},
    {"atom_vec_f32_noftz_bitbucket", "newer PTX (.noftz)"},
    {"red_f32_noftz", "newer PTX (.noftz)"},
    {"red_vec_f32_noftz", "newer PTX (.noftz)"},
    {"cp_reduce_async_bulk_s2g_f32_noftz", "newer PTX (.noftz)"},
    /* sm_100f forms CUDA 13.0's ptxas lacks: the code generator refuses them
     * (cvt_bf16x2_f8x2 it rewrites through f16x2, and that compiles) */
    {"cvt_bf16x2_f4x2", "sm_100f form, refused by tirx"},
    {"cvt_bf16x2_f6x2", "sm_100f form, refused by tirx"},
    {"cvt_f6x2_fp16x2", "sm_100f form, refused by tirx"},
    {"cvt_rs_f8x4_f32", "sm_100f form, refused by tirx"},
    {"cvt_rs_f6x4_f32", "sm_100f form, refused by tirx"},
    /* the table admits a combination ptxas refuses (the sweep's first choices) */
    {"prefetch", "ptxas needs a level (.L1/.L2) unless .tensormap"},
    {"multimem_ld_reduce", "min/max need a signed or unsigned type, not .b32"},
    {"multimem_red", "min/max need a signed or unsigned type, not .b32"},
    {"multimem_ld_reduce_f", "a scalar .f16 is refused"},
    {"multimem_red_f", "a scalar .f16 is refused"},
    {"multimem_st_f", "a scalar .f16 is refused"},
    {"cp_reduce_async_bulk_s2c", ".add needs .u32/.s32/.u64, not .b32"},
    {"cp_reduce_async_bulk_s2g", ".add.f16 needs .noftz"},
};

static const char *known_failure(const char *key)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(known_failures); i++)
        if (!strcmp(known_failures[i].key, key))
            return known_failures[i].why;
    return NULL;
}

/* ---------------------------------------------------------------- slot choice */

static bool usable(const IrPtxResolved *r, int sm)
{
    return ir_ptx_valid(r, NULL, 0) && ir_ptx_available(r, sm);
}

/* The choice of slot s at position k: the slot's k-th token, "" after them
 * for an optional slot, NULL when there is none. */
static const char *choice(int entry, int s, int k)
{
    const char *const *c = ir_ptx_slot_choices(entry, s);
    int n = 0;
    while (c[n])
        n++;
    if (k < n)
        return c[k];
    return k == n && ir_ptx_slot_optional(entry, s) ? "" : NULL;
}

/* Defaults (first required choice, optional slots omitted), then one slot
 * varied, then two. */
static bool choose_slots(int entry, int sm, IrPtxResolved *r)
{
    r->entry = entry;
    r->nslots = ir_ptx_nslots(entry);
    for (int s = 0; s < r->nslots; s++)
        r->slots[s] = ir_ptx_slot_optional(entry, s) ? "" : choice(entry, s, 0);
    if (usable(r, sm))
        return true;
    IrPtxResolved base = *r;
    for (int a = 0; a < r->nslots; a++)
        for (int ka = 0; choice(entry, a, ka); ka++) {
            *r = base;
            r->slots[a] = choice(entry, a, ka);
            if (usable(r, sm))
                return true;
            for (int b = a + 1; b < r->nslots; b++)
                for (int kb = 0; choice(entry, b, kb); kb++) {
                    r->slots[b] = choice(entry, b, kb);
                    if (usable(r, sm))
                        return true;
                }
        }
    return false;
}

/* ---------------------------------------------------------------- operands */

static int type_bits(const char *t)
{
    if (!strcmp(t, "pred"))
        return 32;
    if (!strcmp(t, "tf32") || !strcmp(t, "bf16x2"))
        return 32;
    if (!strcmp(t, "bf16") || (t[0] == 'e' && strstr(t, "x2")) || !strcmp(t, "ue8m0x2") ||
        !strcmp(t, "s2f6x2") || !strcmp(t, "e2m1x4"))
        return !strcmp(t, "e2m1x2") ? 8 : 16;
    const char *d = t + strcspn(t, "0123456789");
    const char *x = strchr(d, 'x');
    return atoi(d) * (x ? atoi(x + 1) : 1);
}

static IrExpr *reg(Kernel *k, const char *type)
{
    int bits = type_bits(type);
    IrExpr *buf = !strcmp(type, "f32")   ? k->f32
                  : !strcmp(type, "f64") ? k->f64
                  : bits == 16           ? k->r16
                  : bits == 64           ? k->r64
                  : bits <= 32           ? k->r32
                                         : NULL;
    if (!buf)
        return NULL;
    return irb_load(k->m, buf, 1, irb_i(k->m, k->next++ % NREGS));
}

static IrExpr *address_of(Kernel *k, IrExpr *buf)
{
    return irb_call(k->m, IR_OP_ADDRESS_OF, IR_HANDLE, 1, irb_load(k->m, buf, 1, irb_i(k->m, 64)));
}

static IrExpr *address(Kernel *k, const IrPtxOperand *op)
{
    if (!strcmp(op->space, "tmem"))
        return reg(k, "b32");
    if (op->group == '[')
        return irb_call(k->m, IR_OP_ADDRESS_OF, IR_HANDLE, 1, k->tmap);
    return address_of(k, !strncmp(op->space, "shared", 6) ? k->shared : k->global);
}

static IrExpr *immediate(Kernel *k, const IrPtxOperand *op)
{
    char first[32] = "1";
    if (op->type[0])
        sscanf(op->type, "%31s", first);
    return irb_i(k->m, atoll(first));
}

/* One expression per lane; NULL when the sweep cannot supply the operand. */
static bool operand_args(Kernel *k, const IrPtxOperand *op, IrExpr **args, int *n)
{
    for (int l = 0; l < op->lanes; l++) {
        IrExpr *a = NULL;
        switch (op->kind) {
        case IR_PTX_OPND_REG: a = reg(k, op->type); break;
        case IR_PTX_OPND_ADDR: a = address(k, op); break;
        case IR_PTX_OPND_PTR: a = address_of(k, k->global); break;
        case IR_PTX_OPND_IMM: a = immediate(k, op); break;
        default: break;
        }
        if (!a)
            return false;
        args[(*n)++] = a;
    }
    return true;
}

/* ---------------------------------------------------------------- kernels */

static IrExpr *local(IrModule *m, const char *name, IrDType t, const char *scope, int n)
{
    IrExpr *b = irb_buffer(m, name, t, scope, 1, irb_i(m, n));
    ((IrBufferType *)ir_buf(b))->layout = NULL;
    return b;
}

static IrExpr *param(IrModule *m, const char *name, IrTypeKind kind, IrDType t)
{
    IrType *ty = TX_NEW(&m->arena, IrType);
    ty->kind = kind, ty->dtype = t, ty->scope = "global";
    return ir_var(&m->arena, name, ty, (TxSpan){0});
}

static IrKwarg *kernel_attrs(IrModule *m, int sm, int *n)
{
    IrKwarg *a = TX_NEW_ARRAY(&m->arena, IrKwarg, 3);
    IrExpr *conv = ir_node(&m->arena, IR_E_PYINT, IR_VOID, (TxSpan){0});
    conv->u.int_val = 2;
    a[0] = (IrKwarg){"calling_conv", conv};
    *n = 1;
    if (sm >= 90) { /* cta_group::2 and multicast forms need a cluster */
        IrExpr *dims = ir_node(&m->arena, IR_E_LIST, IR_VOID, (TxSpan){0});
        dims->u.list.n = 3;
        dims->u.list.items = irb_exprs(m, 3, ir_int(&m->arena, IR_INT32, 2, (TxSpan){0}),
                                       ir_int(&m->arena, IR_INT32, 1, (TxSpan){0}),
                                       ir_int(&m->arena, IR_INT32, 1, (TxSpan){0}));
        a[(*n)++] = (IrKwarg){"tirx.cluster_dims", dims};
    }
    return a;
}

/* Adds kernel ptx_KEY for r to m; false when an operand cannot be supplied. */
static bool add_kernel(IrModule *m, const IrPtxResolved *r, int sm)
{
    Kernel k = {m};
    IrExpr *g = param(m, "G", IR_TY_PTR, IR_UINT32);
    k.tmap = param(m, "tmap", IR_TY_TENSORMAP, IR_VOID);
    k.global = local(m, "Gb", IR_UINT32, "global", 1024);
    k.shared = local(m, "S", IR_UINT32, "shared", 4096);
    k.r16 = local(m, "r16", IR_UINT16, "local", NREGS);
    k.r32 = local(m, "r32", IR_UINT32, "local", NREGS);
    k.r64 = local(m, "r64", IR_UINT64, "local", NREGS);
    k.f32 = local(m, "f32", IR_FLOAT32, "local", NREGS);
    k.f64 = local(m, "f64", IR_FLOAT64, "local", NREGS);
    IrPtxOperand ops[MAX_OPERANDS];
    int nops = ir_ptx_operands(r, ops, MAX_OPERANDS), nargs = 0;
    IrExpr **args = TX_NEW_ARRAY(&m->arena, IrExpr *, ir_ptx_noperands(r) + 1);
    for (int i = 0; i < nops; i++)
        if (ops[i].kind != IR_PTX_OPND_TEXT && !operand_args(&k, &ops[i], args, &nargs))
            return false;
    IrExpr *call = ir_node(&m->arena, IR_E_CALL, IR_VOID, (TxSpan){0});
    call->u.call = (IrCall){.op = IR_OP_PTX, .nargs = nargs, .args = args, .ptx_entry = r->entry,
                            .nptx_slots = r->nslots, .ptx_marker = ""};
    call->u.call.ptx_slots = TX_NEW_ARRAY(&m->arena, const char *, r->nslots + 1);
    for (int s = 0; s < r->nslots; s++)
        call->u.call.ptx_slots[s] = r->slots[s];
    IrExpr *tx = irb_var(m, "threadIdx_x", IR_INT32);
    IrStmt *body = irb_seq(m, 9, irb_decl(m, k.global, g), irb_alloc(m, k.shared), irb_alloc(m, k.r16),
                           irb_alloc(m, k.r32), irb_alloc(m, k.r64), irb_alloc(m, k.f32),
                           irb_alloc(m, k.f64), irb_eval(m, call),
                           irb_store(m, k.global, irb_load(m, k.r32, 1, irb_i(m, 0)), 1, tx));
    IrStmt *launch = irb_attr(m, tx, "thread_extent", irb_i(m, 128), body);
    launch->u.attr.thread_tag = "threadIdx.x";
    IrFunc *f = irb_func(m, tx_arena_printf(&m->arena, "ptx_%s", ir_ptx_key(r->entry)), launch, 2, g, k.tmap);
    f->attrs = kernel_attrs(m, sm, &f->nattrs);
    return true;
}

/* ---------------------------------------------------------------- compile */

typedef struct Sweep {
    const char *arch;
    int sm;
    int entries[1024];
    IrPtxResolved resolved[1024];
    int n, skipped, unsupplied;
} Sweep;

/* Generate and compile the kernels of the given entries; the NVRTC log on failure. */
static bool compile(const Sweep *s, const int *which, int n, char **log)
{
    IrModule *m = ir_module_new();
    for (int i = 0; i < n; i++)
        add_kernel(m, &s->resolved[which[i]], s->sm);
    CgOptions o = {.sm = s->sm};
    TxBuf out = {0};
    bool ok = cg_emit_module(m, &o, &out);
    for (int i = 0; i < m->diags.list.len; i++)
        tx_diag_render(&m->diags.list.items[i], &out);
    ir_module_free(m);
    *log = NULL;
    if (!ok) {
        *log = tx_buf_take(&out);
        return false;
    }
    RtHeader prelude = {cg_prelude_name(), cg_prelude_text()};
    RtCompileOptions co = {.arch = s->arch, .headers = &prelude, .nheaders = 1, .name = "sweep.cu"};
    RtBinary bin = {0};
    RtError err;
    RtStatus st = rt_compile(out.data, &co, &bin, &err);
    if (st != RT_OK) {
        TxBuf b = {0};
        tx_buf_printf(&b, "%s\n%s", err.message, bin.log ? bin.log : "");
        *log = tx_buf_take(&b);
    }
    rt_binary_free(&bin);
    tx_buf_free(&out);
    return st == RT_OK;
}

/* The log's error lines (not NVRTC's warnings about the sweep's unused arrays). */
static void print_errors(const char *log)
{
    for (const char *p = log ? log : ""; *p;) {
        size_t n = strcspn(p, "\n");
        const char *e = strstr(p, "error");
        if (e && e < p + n)
            printf("  %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static void collect(Sweep *s, int argc, char **argv)
{
    for (int e = 0; e < ir_ptx_count(); e++) {
        bool named = argc <= 2;
        for (int i = 2; i < argc; i++)
            named |= !strcmp(argv[i], ir_ptx_key(e));
        if (!named)
            continue;
        IrPtxResolved r;
        if (!choose_slots(e, s->sm, &r)) {
            s->skipped++;
            continue;
        }
        IrModule *probe = ir_module_new();
        bool supplied = add_kernel(probe, &r, s->sm);
        ir_module_free(probe);
        if (!supplied) {
            printf("  not swept: %s (an operand the sweep cannot supply)\n", ir_ptx_key(e));
            s->unsupplied++;
            continue;
        }
        s->entries[s->n] = e;
        s->resolved[s->n++] = r;
    }
}

int main(int argc, char **argv)
{
    static Sweep s;
    int major, minor;
    RtError err;
    if (argc < 2 || !(s.sm = ir_target_sm(argv[1]))) {
        fprintf(stderr, "usage: codegen_ptx_sweep sm_80|sm_90a|sm_100a [KEY...]\n");
        return 2;
    }
    if (rt_nvrtc_version(&major, &minor, &err) != RT_OK) {
        printf("SKIPPED: %s\n", err.message);
        return 77;
    }
    s.arch = argv[1];
    collect(&s, argc, argv);
    int *all = malloc(sizeof(int) * (size_t)(s.n ? s.n : 1)), failed = 0;
    for (int i = 0; i < s.n; i++)
        all[i] = i;
    char *log;
    int expected = 0, n = 0;
    for (int i = 0; i < s.n; i++) /* the known failures are compiled one by one */
        if (!known_failure(ir_ptx_key(s.entries[i])))
            all[n++] = i;
    if (!compile(&s, all, n, &log)) {
        free(log);
        for (int i = 0; i < n; i++) {
            if (compile(&s, &all[i], 1, &log))
                continue;
            char mn[256];
            ir_ptx_mnemonic(&s.resolved[all[i]], mn, sizeof mn);
            printf("FAILED %s (%s):\n", ir_ptx_key(s.entries[all[i]]), mn);
            print_errors(log);
            free(log);
            failed++;
        }
    }
    for (int i = 0; i < s.n; i++) {
        const char *key = ir_ptx_key(s.entries[i]), *why = known_failure(key);
        if (!why)
            continue;
        bool ok = compile(&s, &i, 1, &log);
        free(log);
        printf("  %s: %s (%s)\n", key, ok ? "compiles now: take it off the known failures" : "rejected as known", why);
        expected += !ok;
    }
    free(all);
    printf("%s: %d table entries compiled by ptxas, %d known rejections, %d failed, %d not on this "
           "target, %d not swept\n",
           s.arch, s.n - failed - expected, expected, failed, s.skipped, s.unsupplied);
    return failed ? 1 : 0;
}
