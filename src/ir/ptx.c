/* The PTX instruction table and its lookups. ptx.def is expanded here into one
 * static array of entries; a spelling resolves the way the reference's T.ptx
 * does: the first token names the family, every further token fills the first
 * still-open modifier slot that lists it (in any order), required slots must be
 * written, and the operand count (and, when known, the operand types) chooses
 * among the shapes that remain. A printed call names every slot in order, so it
 * resolves position by position. Operand layouts follow from the modifier tokens
 * through a few named lane rules (a vector's .v4, mma fragment sizes, ...).
 * Errors name the nearest spellings. Prefix: ir_ptx_ (API), ptx_ (this file). */
#include "ptx.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the table */

typedef struct PtxSlot {
    const char *name;
    bool optional;
    const char *const *choices; /* NULL-terminated */
} PtxSlot;

typedef struct PtxOperand {
    const char *name;
    uint8_t kind;      /* IrPtxOperandKind */
    char rw;           /* 'r', 'w', '+' */
    char group;        /* 0, '[' or '|' */
    bool sinkable;
    const char *type;  /* REG: type token or slot name; IMM: values; TEXT: the text */
    const char *space; /* ADDR: a fixed space; NULL: the entry's "space" slot */
    const char *lanes; /* lanes rule (see ptx_lanes); NULL: one register */
} PtxOperand;

typedef struct PtxRule {
    const char *a, *b;  /* two slot names */
    const char *pairs;  /* "ta:tb ta:tb ..." allowed when both are known; "-" = omitted */
} PtxRule;

typedef struct PtxEntry {
    const char *key, *mnemonic;
    int min_sm, max_sm; /* max_sm 0: every later target */
    const PtxSlot *slots;
    const PtxOperand *ops;
    const PtxRule *rules; /* NULL: none */
} PtxEntry;

typedef struct PtxTokenSm {
    const char *token;
    int sm;
} PtxTokenSm;

typedef struct PtxSpelling {
    const char *mnemonic, *printed;
} PtxSpelling;

typedef struct PtxUniform {
    int entry;
    const char *conditions; /* "slot=tok|tok ..." ("-" = omitted), all must hold */
} PtxUniform;

#define SM(n) n, 0
#define SM_ONLY(n) n, n
#define REQ(name, ...) {name, false, (const char *const[]){__VA_ARGS__, NULL}}
#define OPT(name, ...) {name, true, (const char *const[]){__VA_ARGS__, NULL}}
#define SLOTS(...) (const PtxSlot[]){__VA_ARGS__, {NULL}}
#define NOSLOTS (const PtxSlot[]){{NULL}}
#define OPND(name, kind, rw, type, space, lanes, group, sink) \
    {name, kind, rw, group, sink, type, space, lanes}
#define IN(n, t) OPND(n, IR_PTX_OPND_REG, 'r', t, NULL, NULL, 0, false)
#define OUT(n, t) OPND(n, IR_PTX_OPND_REG, 'w', t, NULL, NULL, 0, false)
#define INOUT(n, t) OPND(n, IR_PTX_OPND_REG, '+', t, NULL, NULL, 0, false)
#define INV(n, t, l) OPND(n, IR_PTX_OPND_REG, 'r', t, NULL, l, 0, false)
#define OUTV(n, t, l) OPND(n, IR_PTX_OPND_REG, 'w', t, NULL, l, 0, false)
#define INOUTV(n, t, l) OPND(n, IR_PTX_OPND_REG, '+', t, NULL, l, 0, false)
#define SINKV(n, rw, t, l) OPND(n, IR_PTX_OPND_REG, rw, t, NULL, l, 0, true)
#define OPTIN(n, t, slot) OPND(n, IR_PTX_OPND_REG, 'r', t, NULL, "?" slot, 0, false)
#define PIPE_OUT(n, t) OPND(n, IR_PTX_OPND_REG, 'w', t, NULL, NULL, '|', false)
#define PIPE_TEXT(n, text) OPND(n, IR_PTX_OPND_TEXT, 'r', text, NULL, "0", '|', false)
#define ADDR(n) OPND(n, IR_PTX_OPND_ADDR, 'r', NULL, NULL, NULL, 0, false)
#define ADDR_IN(n, space) OPND(n, IR_PTX_OPND_ADDR, 'r', NULL, space, NULL, 0, false)
#define TMEM(n) OPND(n, IR_PTX_OPND_ADDR, 'r', NULL, "tmem", NULL, 0, false)
#define TMAP(n) OPND(n, IR_PTX_OPND_ADDR, 'r', NULL, "global", NULL, '[', false)
#define COORDS(n) OPND(n, IR_PTX_OPND_REG, 'r', "s32", NULL, "tma_coords", '[', false)
#define PTR(n) OPND(n, IR_PTX_OPND_PTR, 'r', NULL, NULL, NULL, 0, false)
#define IMM(n, values) OPND(n, IR_PTX_OPND_IMM, 'r', values, NULL, NULL, 0, false)
#define TEXT(n, text) OPND(n, IR_PTX_OPND_TEXT, 'r', text, NULL, "0", 0, false)
#define OPS(...) (const PtxOperand[]){__VA_ARGS__, {NULL}}
#define NOOPS (const PtxOperand[]){{NULL}}
#define PAIRS(a, b, pairs) {a, b, pairs}
#define RULES(...) (const PtxRule[]){__VA_ARGS__, {NULL}}

#define PTX(key, mnemonic, arch, slots, ops) {#key, mnemonic, arch, slots, ops, NULL},
#define PTX_CHECKED(key, mnemonic, arch, slots, ops, rules) {#key, mnemonic, arch, slots, ops, rules},
#define PTX_TOKEN_SM(token, sm)
#define PTX_SPELLING(mnemonic, printed)
#define PTX_UNIFORM(key, conditions)
static const PtxEntry ptx_table[] = {
#include "ptx.def"
};
#undef PTX
#undef PTX_CHECKED
#undef PTX_TOKEN_SM
#undef PTX_SPELLING

#define PTX(key, ...)
#define PTX_CHECKED(key, ...)
#define PTX_TOKEN_SM(token, sm) {token, sm},
#define PTX_SPELLING(mnemonic, printed)
static const PtxTokenSm ptx_token_sm[] = {
#include "ptx.def"
};
#undef PTX_TOKEN_SM
#undef PTX_SPELLING

#define PTX_TOKEN_SM(token, sm)
#define PTX_SPELLING(mnemonic, printed) {mnemonic, printed},
static const PtxSpelling ptx_spellings[] = {
#include "ptx.def"
};
#undef PTX_SPELLING

#define PTX_SPELLING(mnemonic, printed)
#undef PTX_UNIFORM
#define PTX_UNIFORM(key, conditions) {IR_PTX_##key, conditions},
static const PtxUniform ptx_uniform[] = {
#include "ptx.def"
};
#undef PTX
#undef PTX_CHECKED
#undef PTX_TOKEN_SM
#undef PTX_SPELLING
#undef PTX_UNIFORM

_Static_assert(TX_ARRAY_LEN(ptx_table) == IR_PTX_COUNT, "ptx.def expands to one entry per key");

/* ---------------------------------------------------------------- entry facts */

#define PTX_FAMILY_MAX 64 /* entries that share one family (a test checks it) */
#define PTX_TOKENS_MAX 24 /* tokens in one spelling */
#define PTX_TOKEN_LEN 64

static const PtxEntry *ptx_entry(int entry)
{
    return entry >= 0 && entry < IR_PTX_COUNT ? &ptx_table[entry] : NULL;
}

static int ptx_count_slots(const PtxEntry *e)
{
    int n = 0;
    while (e->slots[n].name)
        n++;
    return n;
}

static int ptx_slot_index(const PtxEntry *e, const char *name)
{
    for (int i = 0; e->slots[i].name; i++)
        if (strcmp(e->slots[i].name, name) == 0)
            return i;
    return -1;
}

/* The choice of slot s spelled token (a static string), or NULL. */
static const char *ptx_choice(const PtxSlot *s, const char *token)
{
    for (int i = 0; s->choices[i]; i++)
        if (strcmp(s->choices[i], token) == 0)
            return s->choices[i];
    return NULL;
}

/* The token written in the named slot: NULL while the slot is still open, ""
 * when it was omitted or e has no such slot. */
static const char *ptx_get(const PtxEntry *e, const char *const *tok, const char *slot)
{
    int i = ptx_slot_index(e, slot);
    return i < 0 ? "" : tok[i];
}

static const char *ptx_get_or_empty(const PtxEntry *e, const char *const *tok, const char *slot)
{
    const char *t = ptx_get(e, tok, slot);
    return t ? t : "";
}

/* Whether the word "a:b" occurs in a space-separated list, compared in place
 * (no joined copy). */
static bool ptx_pair_listed(const char *list, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == na + 1 + nb && memcmp(p, a, na) == 0 && p[na] == ':' &&
            memcmp(p + na + 1, b, nb) == 0)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

/* The printed family: the mnemonic, or its PTX_SPELLING (a scan of the
 * spellings; lookups read it from the index, ptx_printed). */
static const char *ptx_spelled(const PtxEntry *e)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(ptx_spellings); i++)
        if (strcmp(ptx_spellings[i].mnemonic, e->mnemonic) == 0)
            return ptx_spellings[i].printed;
    return e->mnemonic;
}

/* ---------------------------------------------------------------- tokens */

/* Undo the attribute escaping of one token: "__colon__" -> ":", "__" -> "::",
 * and one trailing '_' (a Python keyword's) dropped. Raw tokens pass unchanged. */
static bool ptx_unescape(const char *in, char *out, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; in[i];) {
        const char *piece = NULL;
        size_t step = 1;
        if (strncmp(in + i, "__colon__", 9) == 0)
            piece = ":", step = 9;
        else if (strncmp(in + i, "__", 2) == 0)
            piece = "::", step = 2;
        size_t plen = piece ? strlen(piece) : 1;
        if (k + plen >= n)
            return false;
        memcpy(out + k, piece ? piece : in + i, plen);
        k += plen, i += step;
    }
    if (k > 0 && out[k - 1] == '_')
        k--;
    out[k] = 0;
    return true;
}

/* ---------------------------------------------------------------- the family index */

/* Built once, on first use (pthread_once): each entry's printed family, that
 * family unescaped (what a spelling's first token reads), and the entries
 * sorted by the names a spelling's first token or a printed call's family may
 * give them, so a lookup visits only its family's entries, in table order. */
typedef struct PtxNamed {
    const char *name;
    int entry;
} PtxNamed;

typedef struct PtxIndex {
    pthread_once_t once;
    const char *printed[IR_PTX_COUNT];         /* ptx_spelled */
    bool has_family[IR_PTX_COUNT];             /* the printed family unescapes */
    char family[IR_PTX_COUNT][PTX_TOKEN_LEN];  /* ... to this */
    bool has_head[IR_PTX_COUNT];               /* a dotted mnemonic whose first piece ... */
    char head[IR_PTX_COUNT][PTX_TOKEN_LEN];    /* ... is this */
    PtxNamed by_token[2 * IR_PTX_COUNT];       /* by family and by head, sorted */
    int ntoken;
    PtxNamed by_printed[IR_PTX_COUNT];         /* by printed family, sorted */
    PtxNamed all[IR_PTX_COUNT];                /* table order */
} PtxIndex;

static PtxIndex ptx_index_data = {.once = PTHREAD_ONCE_INIT};

/* Name order, then table order within a name. */
static int ptx_named_cmp(const void *pa, const void *pb)
{
    const PtxNamed *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : a->entry - b->entry;
}

/* The first piece of a dotted mnemonic into head; false when it is undotted or
 * the piece is longer than any token. */
static bool ptx_mnemonic_head(const char *mnemonic, char *head)
{
    const char *dot = strchr(mnemonic, '.');
    if (!dot || dot - mnemonic >= PTX_TOKEN_LEN)
        return false;
    memcpy(head, mnemonic, (size_t)(dot - mnemonic));
    head[dot - mnemonic] = 0;
    return true;
}

static void ptx_index_build(void)
{
    PtxIndex *ix = &ptx_index_data;
    for (int i = 0; i < IR_PTX_COUNT; i++) {
        ix->printed[i] = ptx_spelled(&ptx_table[i]);
        ix->has_family[i] = ptx_unescape(ix->printed[i], ix->family[i], PTX_TOKEN_LEN);
        ix->has_head[i] = ptx_mnemonic_head(ptx_table[i].mnemonic, ix->head[i]);
        ix->by_printed[i] = ix->all[i] = (PtxNamed){ix->printed[i], i};
        if (ix->has_family[i])
            ix->by_token[ix->ntoken++] = (PtxNamed){ix->family[i], i};
        if (ix->has_head[i] && !(ix->has_family[i] && strcmp(ix->head[i], ix->family[i]) == 0))
            ix->by_token[ix->ntoken++] = (PtxNamed){ix->head[i], i};
    }
    qsort(ix->by_token, (size_t)ix->ntoken, sizeof(PtxNamed), ptx_named_cmp);
    qsort(ix->by_printed, IR_PTX_COUNT, sizeof(PtxNamed), ptx_named_cmp);
}

static const PtxIndex *ptx_index(void)
{
    pthread_once(&ptx_index_data.once, ptx_index_build);
    return &ptx_index_data;
}

/* The run of sorted (n of them) named name; returns its start, *count its length. */
static const PtxNamed *ptx_named_run(const PtxNamed *sorted, int n, const char *name, int *count)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int end = lo;
    while (end < n && strcmp(sorted[end].name, name) == 0)
        end++;
    *count = end - lo;
    return sorted + lo;
}

/* The printed family: the mnemonic, or its PTX_SPELLING. */
static const char *ptx_printed(const PtxEntry *e)
{
    return ptx_index()->printed[e - ptx_table];
}

/* The entries whose printed family is family, in table order. */
static const PtxNamed *ptx_by_printed(const char *family, int *count)
{
    const PtxIndex *ix = ptx_index();
    return ptx_named_run(ix->by_printed, IR_PTX_COUNT, family, count);
}

/* The entries a spelling's first token may name, in table order: those whose
 * unescaped family or dotted mnemonic's first piece it is (every entry when it
 * has a dot itself, a form the index does not key). A superset: the caller
 * checks each with ptx_family_tokens. */
static const PtxNamed *ptx_by_first_token(const char *first, int *count)
{
    const PtxIndex *ix = ptx_index();
    if (strchr(first, '.')) {
        *count = IR_PTX_COUNT;
        return ix->all;
    }
    return ptx_named_run(ix->by_token, ix->ntoken, first, count);
}

/* ---------------------------------------------------------------- operand layout */

static int ptx_number_after(const char *token, int skip)
{
    return (int)strlen(token) > skip ? atoi(token + skip) : 0;
}

typedef struct PtxMmaType {
    const char *name;
    int bits;
} PtxMmaType;

static int ptx_mma_bits(const char *type)
{
    static const PtxMmaType bits[] = {
        {"f16", 16}, {"bf16", 16}, {"tf32", 32}, {"e4m3", 8}, {"e5m2", 8}, {"f32", 32},
        {"f64", 64}, {"s32", 32},  {"u8", 8},    {"s8", 8},   {"u4", 4},   {"s4", 4}, {"b1", 1},
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(bits); i++)
        if (strcmp(bits[i].name, type) == 0)
            return bits[i].bits;
    return 32;
}

/* Registers one thread holds of a rows x cols fragment (ISA 9.7.14.5). */
static int ptx_mma_regs(const char *type, int rows, int cols, int threads, int reg_bits)
{
    int n = rows * cols * ptx_mma_bits(type) / threads / reg_bits;
    return n > 1 ? n : 1;
}

/* mma fragment sizes: which is 'd', 'a', 'b', 'c', or 's' (the sparse A, half of K). */
static int ptx_mma_lanes(const PtxEntry *e, const char *const *tok, char which)
{
    int m = 0, n = 0, k = 0;
    sscanf(ptx_get_or_empty(e, tok, "shape"), "m%dn%dk%d", &m, &n, &k);
    const char *atype = ptx_get_or_empty(e, tok, "atype");
    bool sparse = ptx_slot_index(e, "spvariant") >= 0;
    /* the .f16 m8n8k4 line computes four MMAs per warp: 8 threads share a tile */
    int threads = !sparse && strcmp(ptx_get_or_empty(e, tok, "shape"), "m8n8k4") == 0 &&
                          strcmp(atype, "f16") == 0
                      ? 8
                      : 32;
    int reg_bits = strcmp(ptx_get_or_empty(e, tok, "dtype"), "f64") == 0 ? 64 : 32;
    switch (which) {
    case 'd': return ptx_mma_regs(ptx_get_or_empty(e, tok, "dtype"), m, n, threads, reg_bits);
    case 'c': return ptx_mma_regs(ptx_get_or_empty(e, tok, "ctype"), m, n, threads, reg_bits);
    case 'a': return ptx_mma_regs(atype, m, sparse ? k / 2 : k, threads, reg_bits);
    default: return ptx_mma_regs(ptx_get_or_empty(e, tok, "btype"), k, n, threads, reg_bits);
    }
}

static int ptx_tcgen05_ldst_lanes(const PtxEntry *e, const char *const *tok)
{
    const char *shape = ptx_get_or_empty(e, tok, "shape");
    int per_num = strcmp(shape, "16x128b") == 0 ? 2 : strcmp(shape, "16x256b") == 0 ? 4 : 1;
    return ptx_number_after(ptx_get_or_empty(e, tok, "num"), 1) * per_num;
}

static int ptx_tma_coords(const PtxEntry *e, const char *const *tok)
{
    const char *mode = ptx_get_or_empty(e, tok, "load_mode");
    if (strcmp(mode, "tile::gather4") == 0 || strcmp(mode, "tile::scatter4") == 0)
        return 5;
    return atoi(ptx_get_or_empty(e, tok, "dim"));
}

static int ptx_wgmma_acc(const PtxEntry *e, const char *const *tok)
{
    int m = 0, n = 0;
    sscanf(ptx_get_or_empty(e, tok, "shape"), "m%dn%d", &m, &n);
    return strcmp(ptx_get_or_empty(e, tok, "dtype"), "f16") == 0 ? n / 4 : n / 2;
}

/* Registers in one operand under the written modifiers. Rules: NULL one; "N" a
 * fixed count; "?slot" one when slot is written, else none; "#slot" the number
 * in slot's token (v4 -> 4, x16 -> 16); and the named rules below. */
static int ptx_lanes(const PtxEntry *e, const char *const *tok, const PtxOperand *op)
{
    const char *r = op->lanes;
    if (!r)
        return 1;
    if (r[0] >= '0' && r[0] <= '9')
        return atoi(r);
    if (r[0] == '?')
        return ptx_get_or_empty(e, tok, r + 1)[0] ? 1 : 0;
    if (r[0] == '#')
        return ptx_number_after(ptx_get_or_empty(e, tok, r + 1), 1);
    if (strcmp(r, "tma_coords") == 0)
        return ptx_tma_coords(e, tok);
    if (strcmp(r, "ldmatrix") == 0)
        return ptx_number_after(ptx_get_or_empty(e, tok, "num"), 1) *
               (strcmp(ptx_get_or_empty(e, tok, "shape"), "m16n16") == 0 ? 2 : 1);
    if (strcmp(r, "tcgen05_ldst") == 0)
        return ptx_tcgen05_ldst_lanes(e, tok);
    if (strcmp(r, "tcgen05_mask") == 0)
        return strcmp(ptx_get_or_empty(e, tok, "cta_group"), "cta_group::2") == 0 ? 8 : 4;
    if (strcmp(r, "wgmma_acc") == 0)
        return ptx_wgmma_acc(e, tok);
    if (strcmp(r, "mma_sp_a") == 0)
        return ptx_mma_lanes(e, tok, 'a');
    if (strncmp(r, "mma_", 4) == 0)
        return ptx_mma_lanes(e, tok, r[4]);
    TX_UNREACHABLE();
}

/* The slots a lanes rule reads, for enumerating operand counts. */
static int ptx_rule_slots(const PtxOperand *op, const char **out)
{
    static const char *const tma[] = {"dim", "load_mode"}, *const ldm[] = {"num", "shape"},
                             *const mask[] = {"cta_group"}, *const wg[] = {"shape", "dtype"},
                             *const mma[] = {"shape", "atype", "btype", "ctype", "dtype"};
    const char *r = op->lanes;
    const char *const *list = NULL;
    int n = 0;
    if (!r || (r[0] >= '0' && r[0] <= '9'))
        return 0;
    if (r[0] == '?' || r[0] == '#') {
        out[0] = r + 1;
        return 1;
    }
    if (strcmp(r, "tma_coords") == 0)
        list = tma, n = 2;
    else if (strcmp(r, "ldmatrix") == 0 || strcmp(r, "tcgen05_ldst") == 0)
        list = ldm, n = 2;
    else if (strcmp(r, "tcgen05_mask") == 0)
        list = mask, n = 1;
    else if (strcmp(r, "wgmma_acc") == 0)
        list = wg, n = 2;
    else
        list = mma, n = 5;
    for (int i = 0; i < n; i++)
        out[i] = list[i];
    return n;
}

/* The PTX type token of a register operand. */
static const char *ptx_operand_type(const PtxEntry *e, const char *const *tok, const PtxOperand *op)
{
    static const char *const wide[][2] = {{"u16", "u32"}, {"s16", "s32"}, {"u32", "u64"},
                                          {"s32", "s64"}};
    const char *type = ptx_get_or_empty(e, tok, "type");
    if (strcmp(op->type, "wide") == 0) { /* mul.wide / mad.wide: twice the width */
        for (size_t i = 0; i < TX_ARRAY_LEN(wide); i++)
            if (strcmp(wide[i][0], type) == 0)
                return wide[i][1];
        return type;
    }
    if (strcmp(op->type, "dp_acc") == 0) /* dp4a/dp2a: .u32 only when both sources are */
        return strcmp(ptx_get_or_empty(e, tok, "atype"), "u32") == 0 &&
                       strcmp(ptx_get_or_empty(e, tok, "btype"), "u32") == 0
                   ? "u32"
                   : "s32";
    if (ptx_slot_index(e, op->type) >= 0) {
        const char *t = ptx_get_or_empty(e, tok, op->type);
        return t[0] ? t : type;
    }
    return op->type;
}

static const char *ptx_operand_space(const PtxEntry *e, const char *const *tok, const PtxOperand *op)
{
    return op->space ? op->space : ptx_get_or_empty(e, tok, "space");
}

static int ptx_operand_count(const PtxEntry *e, const char *const *tok)
{
    int n = 0;
    for (const PtxOperand *op = e->ops; op->name; op++)
        if (op->kind != IR_PTX_OPND_TEXT)
            n += ptx_lanes(e, tok, op);
    return n;
}

/* Whether the written tokens satisfy the entry's rules; a slot still open passes. */
static bool ptx_rules_hold(const PtxEntry *e, const char *const *tok, const PtxRule **failed)
{
    for (const PtxRule *r = e->rules; r && r->a; r++) {
        const char *a = ptx_get(e, tok, r->a), *b = ptx_get(e, tok, r->b);
        if (!a || !b)
            continue;
        if (!ptx_pair_listed(r->pairs, a[0] ? a : "-", b[0] ? b : "-")) {
            if (failed)
                *failed = r;
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- operand types */

static int ptx_type_bits(const char *t)
{
    static const char *const b8[] = {"b8", "u8", "s8", "e2m1x2"};
    static const char *const b16[] = {"b16", "u16", "s16", "f16", "bf16", "e4m3x2", "e5m2x2",
                                      "e2m3x2", "e3m2x2", "ue8m0x2", "s2f6x2", "e2m1x4"};
    static const char *const b64[] = {"b64", "u64", "s64", "f64", "f32x2"};
    for (size_t i = 0; i < TX_ARRAY_LEN(b8); i++)
        if (strcmp(t, b8[i]) == 0)
            return 8;
    for (size_t i = 0; i < TX_ARRAY_LEN(b16); i++)
        if (strcmp(t, b16[i]) == 0)
            return 16;
    for (size_t i = 0; i < TX_ARRAY_LEN(b64); i++)
        if (strcmp(t, b64[i]) == 0)
            return 64;
    return strcmp(t, "b128") == 0 ? 128 : 32;
}

static int ptx_dtype_bits(IrDType t)
{
    return t.bits * (t.lanes ? t.lanes : 1);
}

static bool ptx_is_int(IrDType t, int bits)
{
    return (t.code == IR_DT_INT || t.code == IR_DT_UINT) && ptx_dtype_bits(t) == bits;
}

/* Whether one argument can be a lane of op. Only the width and the register
 * class are checked: enough to tell the table's same-spelling shapes apart; the
 * codegen checks the exact types. */
static bool ptx_arg_fits(const PtxEntry *e, const char *const *tok, const PtxOperand *op,
                         const IrPtxArg *arg)
{
    IrDType t = arg->dtype;
    bool unknown = t.code == IR_DT_VOID;
    bool pred = arg->pred || t.code == IR_DT_BOOL;
    bool pred_reg = op->kind == IR_PTX_OPND_REG && strcmp(ptx_operand_type(e, tok, op), "pred") == 0;
    if (pred)
        return pred_reg && op->rw == 'r';
    if (unknown)
        return true;
    switch (op->kind) {
    case IR_PTX_OPND_REG:
        if (pred_reg)
            return op->rw != 'r' && ptx_is_int(t, 32);
        return t.code != IR_DT_HANDLE &&
               ptx_dtype_bits(t) == ptx_type_bits(ptx_operand_type(e, tok, op));
    case IR_PTX_OPND_ADDR: {
        const char *space = ptx_operand_space(e, tok, op);
        if (strcmp(space, "tmem") == 0)
            return ptx_is_int(t, 32);
        if (t.code == IR_DT_HANDLE)
            return true;
        return ptx_is_int(t, strncmp(space, "shared", 6) == 0 ? 32 : 64);
    }
    case IR_PTX_OPND_PTR: return t.code == IR_DT_HANDLE;
    case IR_PTX_OPND_IMM: return t.code == IR_DT_INT || t.code == IR_DT_UINT;
    default: return false;
    }
}

/* Index of the first argument that fits no lane, or -1 when all fit. */
static int ptx_args_misfit(const PtxEntry *e, const char *const *tok, const IrPtxArg *args)
{
    int i = 0;
    for (const PtxOperand *op = e->ops; op->name; op++) {
        if (op->kind == IR_PTX_OPND_TEXT)
            continue;
        for (int lane = ptx_lanes(e, tok, op); lane > 0; lane--, i++)
            if (!ptx_arg_fits(e, tok, op, &args[i]))
                return i;
    }
    return -1;
}

/* ---------------------------------------------------------------- messages */

/* Append to a message buffer, truncating quietly. */
static void ptx_msg(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ptx_msg(char *err, size_t n, const char *fmt, ...)
{
    if (!err || n == 0)
        return;
    size_t len = strnlen(err, n);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + len, n - len, fmt, ap);
    va_end(ap);
}

static void ptx_msg_start(char *err, size_t n)
{
    if (err && n)
        err[0] = 0;
}

/* A spelling as PTX text: raw tokens joined with '.'. */
static void ptx_msg_spelling(char *err, size_t n, const char (*raw)[PTX_TOKEN_LEN], int ntok)
{
    for (int i = 0; i < ntok; i++)
        ptx_msg(err, n, "%s%s", i ? "." : "", raw[i]);
}

/* ---------------------------------------------------------------- resolution */

typedef struct PtxCand {
    int entry;
    int consumed;                          /* tokens taken by the family name */
    int failed_at;                         /* first token no open slot took; ntok when none */
    bool in_order;                         /* the tokens filled slots left to right */
    const char *tok[IR_PTX_MAX_SLOTS];     /* NULL while open */
} PtxCand;

typedef struct PtxQuery {
    char raw[PTX_TOKENS_MAX][PTX_TOKEN_LEN]; /* unescaped tokens, the family first */
    int ntok;
    int noperands;         /* -1: unknown */
    const IrPtxArg *args;  /* NULL: unknown */
} PtxQuery;

/* How many leading tokens name e's family: 1 for the printed family ("ld",
 * "elect_sync", "and_"), k for a dotted mnemonic spelled out ("elect.sync");
 * 0 when they do not. */
static int ptx_family_tokens(int entry, const PtxQuery *q)
{
    const PtxIndex *ix = ptx_index();
    if (ix->has_family[entry] && strcmp(ix->family[entry], q->raw[0]) == 0)
        return 1;
    const char *m = ptx_table[entry].mnemonic;
    int k = 0;
    while (k < q->ntok) {
        size_t len = strlen(q->raw[k]);
        if (strncmp(m, q->raw[k], len) != 0 || (m[len] != '.' && m[len] != 0))
            return 0;
        k++;
        if (m[len] == 0)
            return k > 1 ? k : 0;
        m += len + 1;
    }
    return 0;
}

/* Put token in the first open slot of e that lists it; returns the slot or -1. */
static int ptx_fill(const PtxEntry *e, const char **tok, const char *token)
{
    for (int i = 0; e->slots[i].name; i++) {
        if (tok[i])
            continue;
        const char *c = ptx_choice(&e->slots[i], token);
        if (c) {
            tok[i] = c;
            return i;
        }
    }
    return -1;
}

/* Fill c's slots from the query's modifier tokens; records where it stopped. */
static void ptx_fill_all(const PtxQuery *q, PtxCand *c)
{
    const PtxEntry *e = &ptx_table[c->entry];
    memset(c->tok, 0, sizeof c->tok);
    c->failed_at = q->ntok;
    c->in_order = true;
    for (int i = c->consumed, last = -1; i < q->ntok; i++) {
        int slot = ptx_fill(e, c->tok, q->raw[i]);
        if (slot < 0) {
            c->failed_at = i;
            return;
        }
        c->in_order &= slot > last;
        last = slot;
    }
}

/* The first required slot left open, or -1; open optional slots become "". */
static int ptx_close_slots(const PtxEntry *e, const char **tok)
{
    for (int i = 0; e->slots[i].name; i++)
        if (!tok[i] && !e->slots[i].optional)
            return i;
    for (int i = 0; e->slots[i].name; i++)
        if (!tok[i])
            tok[i] = "";
    return -1;
}

static int ptx_candidates(const PtxQuery *q, PtxCand *out)
{
    int n = 0, count;
    const PtxNamed *named = ptx_by_first_token(q->raw[0], &count);
    for (int j = 0; j < count && n < PTX_FAMILY_MAX; j++) {
        int i = named[j].entry, k = ptx_family_tokens(i, q);
        if (k) {
            out[n] = (PtxCand){.entry = i, .consumed = k};
            ptx_fill_all(q, &out[n]);
            n++;
        }
    }
    return n;
}

static bool ptx_same_printed(const PtxCand *a, const PtxCand *b)
{
    const PtxEntry *ea = &ptx_table[a->entry], *eb = &ptx_table[b->entry];
    int n = ptx_count_slots(ea);
    if (strcmp(ptx_printed(ea), ptx_printed(eb)) != 0 || n != ptx_count_slots(eb))
        return false;
    for (int i = 0; i < n; i++)
        if (strcmp(a->tok[i], b->tok[i]) != 0)
            return false;
    return true;
}

static void ptx_fill_out(const PtxCand *c, IrPtxResolved *out)
{
    const PtxEntry *e = &ptx_table[c->entry];
    out->entry = c->entry;
    out->nslots = ptx_count_slots(e);
    for (int i = 0; i < out->nslots; i++)
        out->slots[i] = c->tok[i];
}

/* ---- error wording ---- */

static int ptx_near_limit(const char *s)
{
    size_t n = strlen(s);
    return n <= 3 ? 1 : n <= 6 ? 2 : 3;
}

/* "unknown PTX instruction 'mbarier'; did you mean 'mbarrier'?" */
static void ptx_unknown_family(const PtxQuery *q, char *err, size_t n)
{
    const char *best = NULL;
    int limit = ptx_near_limit(q->raw[0]), bestd = limit + 1;
    for (int i = 0; i < IR_PTX_COUNT; i++) {
        char fam[PTX_TOKEN_LEN];
        ptx_unescape(ptx_printed(&ptx_table[i]), fam, sizeof fam);
        int d = tx_edit_distance(q->raw[0], fam, limit);
        if (d < bestd)
            bestd = d, best = ptx_printed(&ptx_table[i]);
    }
    ptx_msg(err, n, "unknown PTX instruction '%s'", q->raw[0]);
    if (best)
        ptx_msg(err, n, "; did you mean '%s'?", best);
}

/* The choice of an open slot closest to the token no slot took, over the
 * candidates that got that far; NULL when none is close. */
static const char *ptx_nearest_choice(const PtxQuery *q, const PtxCand *cands, int ncand, int at)
{
    const char *best = NULL;
    int limit = ptx_near_limit(q->raw[at]), bestd = limit + 1;
    for (int c = 0; c < ncand; c++) {
        const PtxEntry *e = &ptx_table[cands[c].entry];
        for (int s = 0; e->slots[s].name; s++) {
            for (int k = 0; !cands[c].tok[s] && e->slots[s].choices[k]; k++) {
                int d = tx_edit_distance(q->raw[at], e->slots[s].choices[k], limit);
                if (d < bestd)
                    bestd = d, best = e->slots[s].choices[k];
            }
        }
    }
    return best;
}

/* "'acquier' is not a modifier of PTX instruction 'ld'; did you mean 'acquire'?" */
static void ptx_unknown_token(const PtxQuery *q, const PtxCand *cands, int ncand, int at,
                              char *err, size_t n)
{
    const char *best = ptx_nearest_choice(q, cands, ncand, at);
    ptx_msg(err, n, "'%s' is not a modifier of PTX instruction '%s'", q->raw[at],
            ptx_table[cands[0].entry].mnemonic);
    if (best) {
        ptx_msg(err, n, "; did you mean '%s'?", best);
        return;
    }
    ptx_msg(err, n, "; open modifier slots:");
    const PtxEntry *e = &ptx_table[cands[0].entry];
    for (int s = 0, shown = 0; e->slots[s].name; s++)
        if (!cands[0].tok[s])
            ptx_msg(err, n, "%s .%s", shown++ ? "," : "", e->slots[s].name);
}

static void ptx_missing_slot(const PtxQuery *q, const PtxCand *c, int slot, char *err, size_t n)
{
    const PtxSlot *s = &ptx_table[c->entry].slots[slot];
    ptx_msg(err, n, "incomplete PTX instruction '");
    ptx_msg_spelling(err, n, q->raw, q->ntok);
    ptx_msg(err, n, "': missing the .%s modifier (", s->name);
    int k = 0;
    for (; s->choices[k] && k < 8; k++)
        ptx_msg(err, n, "%s%s", k ? ", " : "", s->choices[k]);
    ptx_msg(err, n, "%s); nearest: ", s->choices[k] ? ", ..." : "");
    ptx_msg_spelling(err, n, q->raw, q->ntok);
    ptx_msg(err, n, ".%s", s->choices[0]);
}

static void ptx_msg_operand_names(const PtxEntry *e, const char *const *tok, char *err, size_t n)
{
    int shown = 0;
    for (const PtxOperand *op = e->ops; op->name; op++) {
        int lanes = ptx_lanes(e, tok, op);
        if (op->kind == IR_PTX_OPND_TEXT || lanes == 0)
            continue;
        ptx_msg(err, n, "%s%s", shown++ ? ", " : "", op->name);
        if (lanes > 1)
            ptx_msg(err, n, "[%d]", lanes);
    }
}

/* "PTX instruction 'mbarrier.init.shared::cta.b64' expects 2 operands (addr,
 * count) but 1 was given" */
static void ptx_wrong_count(const PtxQuery *q, const PtxCand *cands, int ncand, char *err,
                            size_t n)
{
    ptx_msg(err, n, "PTX instruction '");
    ptx_msg_spelling(err, n, q->raw, q->ntok);
    ptx_msg(err, n, "' expects ");
    for (int c = 0; c < ncand; c++) {
        const PtxEntry *e = &ptx_table[cands[c].entry];
        int count = ptx_operand_count(e, cands[c].tok);
        bool seen = false; /* each count once */
        for (int d = 0; d < c; d++)
            seen |= ptx_operand_count(&ptx_table[cands[d].entry], cands[d].tok) == count;
        if (seen)
            continue;
        ptx_msg(err, n, "%s%d operand%s (", c ? " or " : "", count, count == 1 ? "" : "s");
        ptx_msg_operand_names(e, cands[c].tok, err, n);
        ptx_msg(err, n, ")");
    }
    ptx_msg(err, n, " but %d %s given", q->noperands, q->noperands == 1 ? "was" : "were");
}

static void ptx_ambiguous(const PtxQuery *q, const PtxCand *cands, int ncand, char *err, size_t n)
{
    ptx_msg(err, n, "PTX instruction '");
    ptx_msg_spelling(err, n, q->raw, q->ntok);
    ptx_msg(err, n, "' is ambiguous between ");
    for (int c = 0; c < ncand && c < 4; c++)
        ptx_msg(err, n, "%s%s", c ? " and " : "", ptx_table[cands[c].entry].key);
    ptx_msg(err, n, "; the operand types decide");
}

static void ptx_rule_failed(const PtxQuery *q, const PtxCand *c, char *err, size_t n)
{
    const PtxEntry *e = &ptx_table[c->entry];
    const PtxRule *r = NULL;
    ptx_rules_hold(e, c->tok, &r);
    ptx_msg(err, n, "invalid PTX instruction '");
    ptx_msg_spelling(err, n, q->raw, q->ntok);
    if (!r)
        return;
    const char *a = ptx_get_or_empty(e, c->tok, r->a), *b = ptx_get_or_empty(e, c->tok, r->b);
    ptx_msg(err, n, "': %s.%s%s%s does not go with %s.%s%s%s", *a ? "" : "no ", r->a, *a ? " " : "",
            a, *b ? "" : "no ", r->b, *b ? " " : "", b);
}

/* ---- the resolution steps ---- */

/* Keep the candidates for which keep(c) holds; returns how many remain. */
typedef bool (*PtxKeep)(const PtxQuery *q, PtxCand *c);

static int ptx_filter(const PtxQuery *q, PtxCand *cands, int n, PtxKeep keep)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (keep(q, &cands[i]))
            cands[k++] = cands[i];
    return k;
}

static bool ptx_keep_filled(const PtxQuery *q, PtxCand *c)
{
    return c->failed_at == q->ntok;
}

static bool ptx_keep_complete(const PtxQuery *q, PtxCand *c)
{
    (void)q;
    return ptx_close_slots(&ptx_table[c->entry], c->tok) < 0;
}

static bool ptx_keep_rules(const PtxQuery *q, PtxCand *c)
{
    (void)q;
    return ptx_rules_hold(&ptx_table[c->entry], c->tok, NULL);
}

static bool ptx_keep_count(const PtxQuery *q, PtxCand *c)
{
    return q->noperands < 0 || ptx_operand_count(&ptx_table[c->entry], c->tok) == q->noperands;
}

static bool ptx_keep_args(const PtxQuery *q, PtxCand *c)
{
    return !q->args || ptx_args_misfit(&ptx_table[c->entry], c->tok, q->args) < 0;
}

static int ptx_furthest(const PtxCand *cands, int n)
{
    int at = 0;
    for (int i = 0; i < n; i++)
        if (cands[i].failed_at > at)
            at = cands[i].failed_at;
    return at;
}

/* The first required slot each candidate misses; reports the candidate missing
 * the latest one (it matched the most). */
static void ptx_report_incomplete(const PtxQuery *q, PtxCand *cands, int n, char *err, size_t len)
{
    int best = 0, best_slot = -1;
    for (int i = 0; i < n; i++) {
        int s = ptx_close_slots(&ptx_table[cands[i].entry], cands[i].tok);
        if (s > best_slot)
            best = i, best_slot = s;
    }
    ptx_missing_slot(q, &cands[best], best_slot, err, len);
}

static bool ptx_keep_in_order(const PtxQuery *q, PtxCand *c)
{
    (void)q;
    return c->in_order;
}

static bool ptx_all_print_alike(const PtxCand *cands, int n)
{
    for (int i = 1; i < n; i++)
        if (!ptx_same_printed(&cands[0], &cands[i]))
            return false;
    return true;
}

/* The candidates left must print alike. When they do not, the shapes whose
 * slots the tokens filled in PTX order win (`cvt.rn.satfinite.e4m3x2.bf16x2`
 * converts to e4m3x2, not to bf16x2); otherwise it is ambiguous. */
static bool ptx_choose(const PtxQuery *q, PtxCand *cands, int n, IrPtxResolved *out, char *err,
                       size_t len)
{
    if (!ptx_all_print_alike(cands, n)) {
        PtxCand all[PTX_FAMILY_MAX];
        memcpy(all, cands, sizeof(PtxCand) * (size_t)n);
        int m = ptx_filter(q, cands, n, ptx_keep_in_order);
        if (m == 0 || !ptx_all_print_alike(cands, m)) {
            ptx_ambiguous(q, all, n, err, len);
            return false;
        }
    }
    ptx_fill_out(&cands[0], out);
    return true;
}

/* Resolves q; on an error about one token, *bad is its index. */
static bool ptx_resolve_query(const PtxQuery *q, IrPtxResolved *out, int *bad, char *err,
                              size_t len)
{
    PtxCand cands[PTX_FAMILY_MAX];
    int n = ptx_candidates(q, cands), m;
    if (n == 0) {
        ptx_unknown_family(q, err, len);
        *bad = 0;
        return false;
    }
    if ((m = ptx_filter(q, cands, n, ptx_keep_filled)) == 0) {
        int at = ptx_furthest(cands, n);
        /* keep the candidates that got furthest, with their slots as filled then */
        for (int i = 0; i < n; i++)
            if (cands[i].failed_at == at)
                cands[m++] = cands[i];
        ptx_unknown_token(q, cands, m, at, err, len);
        *bad = at;
        return false;
    }
    n = m;
    PtxCand filled[PTX_FAMILY_MAX];
    memcpy(filled, cands, sizeof(PtxCand) * (size_t)n);
    if ((m = ptx_filter(q, cands, n, ptx_keep_complete)) == 0) {
        ptx_report_incomplete(q, filled, n, err, len);
        return false;
    }
    n = m;
    if ((m = ptx_filter(q, cands, n, ptx_keep_rules)) == 0) {
        ptx_rule_failed(q, &cands[0], err, len);
        return false;
    }
    n = m;
    if ((m = ptx_filter(q, cands, n, ptx_keep_count)) == 0) {
        ptx_wrong_count(q, cands, n, err, len);
        return false;
    }
    n = m;
    /* the operand types only choose among shapes; the codegen checks them */
    PtxCand counted[PTX_FAMILY_MAX];
    memcpy(counted, cands, sizeof(PtxCand) * (size_t)n);
    if ((m = ptx_filter(q, cands, n, ptx_keep_args)) == 0)
        return ptx_choose(q, counted, n, out, err, len);
    return ptx_choose(q, cands, m, out, err, len);
}

/* Unescapes the tokens into q; on an error about one token, *bad is its index. */
static bool ptx_query_init(PtxQuery *q, const char *const *tokens, int ntokens, int *bad,
                           char *err, size_t len)
{
    if (ntokens < 1 || ntokens > PTX_TOKENS_MAX) {
        ptx_msg(err, len, "a PTX instruction needs 1 to %d dotted names, got %d", PTX_TOKENS_MAX,
                ntokens);
        return false;
    }
    q->ntok = ntokens;
    for (int i = 0; i < ntokens; i++) {
        if (!tokens[i] || !tokens[i][0] ||
            !ptx_unescape(tokens[i], q->raw[i], sizeof q->raw[i])) {
            ptx_msg(err, len, "PTX instruction name piece %d is empty or too long", i + 1);
            *bad = i;
            return false;
        }
    }
    return true;
}

bool ir_ptx_resolve(const char *const *tokens, int ntokens, int noperands, IrPtxResolved *out,
                    char *err, size_t errlen)
{
    return ir_ptx_resolve_args(tokens, ntokens, NULL, noperands, out, NULL, err, errlen);
}

bool ir_ptx_resolve_args(const char *const *tokens, int ntokens, const IrPtxArg *args, int nargs,
                         IrPtxResolved *out, int *bad_token, char *err, size_t errlen)
{
    PtxQuery q = {.noperands = nargs, .args = args};
    int bad = -1;
    ptx_msg_start(err, errlen);
    bool ok = ptx_query_init(&q, tokens, ntokens, &bad, err, errlen) &&
              ptx_resolve_query(&q, out, &bad, err, errlen);
    if (bad_token)
        *bad_token = ok ? -1 : bad;
    return ok;
}

/* ---- the printed form ---- */

/* Whether the printed slot strings fit e position by position. */
static bool ptx_printed_fits(const PtxEntry *e, const char *const *slots, PtxCand *c)
{
    for (int i = 0; e->slots[i].name; i++) {
        const char *t = slots[i] ? slots[i] : "";
        if (!t[0]) {
            if (!e->slots[i].optional)
                return false;
            c->tok[i] = "";
            continue;
        }
        if (!(c->tok[i] = ptx_choice(&e->slots[i], t)))
            return false;
    }
    return ptx_rules_hold(e, c->tok, NULL);
}

/* The first entry of the family the printed slots fit with this many operands,
 * preferring one whose operand types fit too (the types only choose). */
static int ptx_resolve_printed_query(const char *family, const char *const *slots, int nslots,
                                     int noperands, const IrPtxArg *args, char *err, size_t len)
{
    bool family_known = false, shape_known = false;
    int counted = -1, count;
    const PtxNamed *named = ptx_by_printed(family, &count);
    for (int j = 0; j < count; j++) {
        int i = named[j].entry;
        const PtxEntry *e = &ptx_table[i];
        family_known = true;
        PtxCand c = {.entry = i};
        if (ptx_count_slots(e) != nslots || !ptx_printed_fits(e, slots, &c))
            continue;
        shape_known = true;
        if (noperands >= 0 && ptx_operand_count(e, c.tok) != noperands)
            continue;
        if (!args || ptx_args_misfit(e, c.tok, args) < 0)
            return i;
        counted = counted < 0 ? i : counted;
    }
    if (counted >= 0)
        return counted;
    if (!family_known) {
        ptx_msg(err, len, "unknown PTX instruction family T.ptx.%s", family);
    } else if (!shape_known) {
        ptx_msg(err, len, "no T.ptx.%s form takes the modifiers (", family);
        for (int i = 0; i < nslots; i++)
            ptx_msg(err, len, "%s\"%s\"", i ? ", " : "", slots[i] ? slots[i] : "");
        ptx_msg(err, len, ")");
    } else {
        ptx_msg(err, len, "no T.ptx.%s form with these modifiers takes %d operands", family,
                noperands);
    }
    return -1;
}

int ir_ptx_resolve_printed(const char *family, const char *const *slots, int nslots, int noperands,
                           char *err, size_t errlen)
{
    ptx_msg_start(err, errlen);
    return ptx_resolve_printed_query(family, slots, nslots, noperands, NULL, err, errlen);
}

int ir_ptx_resolve_printed_args(const char *family, const char *const *slots, int nslots,
                                const IrPtxArg *args, int nargs, char *err, size_t errlen)
{
    ptx_msg_start(err, errlen);
    return ptx_resolve_printed_query(family, slots, nslots, nargs, args, err, errlen);
}

/* ---------------------------------------------------------------- entry queries */

const char *ir_ptx_family_printed(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? ptx_printed(e) : NULL;
}

const char *ir_ptx_family(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? e->mnemonic : NULL;
}

const char *ir_ptx_key(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? e->key : NULL;
}

int ir_ptx_nslots(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? ptx_count_slots(e) : 0;
}

const char *ir_ptx_slot_name(int entry, int slot)
{
    const PtxEntry *e = ptx_entry(entry);
    return e && slot >= 0 && slot < ptx_count_slots(e) ? e->slots[slot].name : NULL;
}

bool ir_ptx_slot_optional(int entry, int slot)
{
    const PtxEntry *e = ptx_entry(entry);
    return e && slot >= 0 && slot < ptx_count_slots(e) && e->slots[slot].optional;
}

const char *const *ir_ptx_slot_choices(int entry, int slot)
{
    const PtxEntry *e = ptx_entry(entry);
    return e && slot >= 0 && slot < ptx_count_slots(e) ? e->slots[slot].choices : NULL;
}

/* Walks every combination of the slots the lanes rules read ("" included for
 * an optional slot) and reports the least and most operands. */
typedef struct PtxRange {
    int min, max;
} PtxRange;

static void ptx_range_walk(const PtxEntry *e, const char **tok, const int *vary, int nvary,
                           PtxRange *r)
{
    if (nvary == 0) {
        if (!ptx_rules_hold(e, tok, NULL))
            return;
        int n = ptx_operand_count(e, tok);
        r->min = n < r->min ? n : r->min;
        r->max = n > r->max ? n : r->max;
        return;
    }
    const PtxSlot *s = &e->slots[vary[0]];
    for (int k = s->optional ? -1 : 0; k < 0 || s->choices[k]; k++) {
        tok[vary[0]] = k < 0 ? "" : s->choices[k];
        ptx_range_walk(e, tok, vary + 1, nvary - 1, r);
    }
    tok[vary[0]] = NULL;
}

static PtxRange ptx_operand_range(const PtxEntry *e)
{
    int vary[IR_PTX_MAX_SLOTS], nvary = 0;
    for (const PtxOperand *op = e->ops; op->name; op++) {
        const char *names[5];
        int nn = ptx_rule_slots(op, names);
        for (int i = 0; i < nn; i++) {
            int s = ptx_slot_index(e, names[i]);
            bool seen = false;
            for (int j = 0; j < nvary; j++)
                seen |= vary[j] == s;
            if (s >= 0 && !seen)
                vary[nvary++] = s;
        }
    }
    const char *tok[IR_PTX_MAX_SLOTS] = {NULL};
    PtxRange r = {1 << 20, -1};
    ptx_range_walk(e, tok, vary, nvary, &r);
    return r;
}

int ir_ptx_min_operands(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? ptx_operand_range(e).min : 0;
}

int ir_ptx_max_operands(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? ptx_operand_range(e).max : 0;
}

IrDType ir_ptx_result_dtype(int entry)
{
    (void)entry;
    return IR_VOID;
}

int ir_ptx_min_sm(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    return e ? e->min_sm : 0;
}

/* Whether a PTX_TOKEN_SM row names token, alone or as "mnemonic/token". */
static bool ptx_token_row_matches(const char *row, const char *mnemonic, const char *token)
{
    const char *slash = strchr(row, '/');
    if (!slash)
        return strcmp(row, token) == 0;
    size_t n = (size_t)(slash - row);
    return strncmp(row, mnemonic, n) == 0 && mnemonic[n] == 0 && strcmp(slash + 1, token) == 0;
}

bool ir_ptx_available(const IrPtxResolved *r, int sm)
{
    const PtxEntry *e = ptx_entry(r->entry);
    if (!e || sm < e->min_sm || (e->max_sm && sm > e->max_sm))
        return false;
    for (int i = 0; i < r->nslots; i++)
        for (size_t k = 0; r->slots[i] && k < TX_ARRAY_LEN(ptx_token_sm); k++)
            if (ptx_token_row_matches(ptx_token_sm[k].token, e->mnemonic, r->slots[i]) &&
                sm < ptx_token_sm[k].sm)
                return false;
    return true;
}

int ir_ptx_first_sm(const IrPtxResolved *r)
{
    static const int targets[] = {80, 90, 100};
    for (size_t i = 0; i < TX_ARRAY_LEN(targets); i++)
        if (ir_ptx_available(r, targets[i]))
            return targets[i];
    return 0;
}

bool ir_ptx_valid(const IrPtxResolved *r, char *err, size_t errlen)
{
    const PtxEntry *e = ptx_entry(r->entry);
    const PtxRule *rule = NULL;
    ptx_msg_start(err, errlen);
    if (!e || r->nslots != ptx_count_slots(e)) {
        ptx_msg(err, errlen, "not a PTX table entry with %d modifier slots", r->nslots);
        return false;
    }
    for (int i = 0; i < r->nslots; i++) {
        const PtxSlot *s = &e->slots[i];
        bool empty = !r->slots[i] || !r->slots[i][0];
        if (empty ? !s->optional : !ptx_choice(s, r->slots[i])) {
            ptx_msg(err, errlen, "%s: '%s' is not a .%s modifier", e->key, empty ? "" : r->slots[i],
                    s->name);
            return false;
        }
    }
    if (!ptx_rules_hold(e, r->slots, &rule)) {
        ptx_msg(err, errlen, "%s: .%s %s does not go with .%s %s", e->key, rule->a,
                ptx_get_or_empty(e, r->slots, rule->a), rule->b, ptx_get_or_empty(e, r->slots, rule->b));
        return false;
    }
    return true;
}

/* One condition "slot=tok|tok" of a PTX_UNIFORM row, n bytes long: r's token in
 * that slot is one of the listed ones ("-" = omitted). */
static bool uniform_condition(const PtxEntry *e, const IrPtxResolved *r, const char *c, size_t n)
{
    const char *eq = memchr(c, '=', n);
    if (!eq)
        return false;
    size_t name_len = (size_t)(eq - c);
    for (int i = 0; i < r->nslots && e->slots[i].name; i++) {
        if (strlen(e->slots[i].name) != name_len || strncmp(e->slots[i].name, c, name_len))
            continue;
        const char *tok = r->slots[i] && *r->slots[i] ? r->slots[i] : "-";
        for (const char *p = eq + 1, *end = c + n; p < end;) {
            size_t len = strcspn(p, "|");
            if (p + len > end)
                len = (size_t)(end - p);
            if (strlen(tok) == len && !strncmp(tok, p, len))
                return true;
            p += len + 1;
        }
        return false;
    }
    return false;
}

/* Every condition of one PTX_UNIFORM row holds for r. */
static bool uniform_row(const PtxEntry *e, const IrPtxResolved *r, const char *conditions)
{
    for (const char *c = conditions; *c;) {
        size_t n = strcspn(c, " ");
        if (!uniform_condition(e, r, c, n))
            return false;
        c += n + (c[n] == ' ');
    }
    return true;
}

/* Some row of r's entry holds (an entry may have several). */
bool ir_ptx_uniform_result(const IrPtxResolved *r)
{
    const PtxEntry *e = ptx_entry(r->entry);
    for (size_t i = 0; e && i < TX_ARRAY_LEN(ptx_uniform); i++)
        if (ptx_uniform[i].entry == r->entry && uniform_row(e, r, ptx_uniform[i].conditions))
            return true;
    return false;
}

bool ir_ptx_has_dst(int entry)
{
    const PtxEntry *e = ptx_entry(entry);
    for (const PtxOperand *op = e ? e->ops : NULL; op && op->name; op++)
        if (op->kind == IR_PTX_OPND_REG && op->rw == 'w')
            return true;
    return false;
}

void ir_ptx_mnemonic(const IrPtxResolved *r, char *buf, size_t n)
{
    const PtxEntry *e = ptx_entry(r->entry);
    if (!buf || n == 0)
        return;
    buf[0] = 0;
    if (!e)
        return;
    ptx_msg(buf, n, "%s", e->mnemonic);
    for (int i = 0; i < r->nslots; i++)
        if (r->slots[i] && r->slots[i][0])
            ptx_msg(buf, n, ".%s", r->slots[i]);
}

int ir_ptx_count(void)
{
    return IR_PTX_COUNT;
}

void ir_ptx_pred_marker(const IrPtxResolved *r, char *buf, size_t n)
{
    IrPtxOperand ops[64];
    int nops = ir_ptx_operands(r, ops, 64);
    for (int k = 0; k < nops; k++)
        if (ops[k].kind == IR_PTX_OPND_REG && ops[k].lanes && ops[k].rw == 'r' && ops[k].type &&
            !strcmp(ops[k].type, "pred")) {
            size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%sp%d", len ? "," : "", ops[k].first_arg);
        }
}

int ir_ptx_operands(const IrPtxResolved *r, IrPtxOperand *out, int max)
{
    const PtxEntry *e = ptx_entry(r->entry);
    int n = 0, arg = 0;
    for (const PtxOperand *op = e ? e->ops : NULL; op && op->name; op++, n++) {
        int lanes = op->kind == IR_PTX_OPND_TEXT ? 0 : ptx_lanes(e, r->slots, op);
        if (n < max) {
            const char *space = op->kind == IR_PTX_OPND_ADDR ? ptx_operand_space(e, r->slots, op) : "";
            out[n] = (IrPtxOperand){
                .name = op->name,
                .kind = (IrPtxOperandKind)op->kind,
                .rw = op->rw,
                .type = op->kind == IR_PTX_OPND_REG ? ptx_operand_type(e, r->slots, op)
                                                     : op->type ? op->type : "",
                .space = space,
                .lanes = lanes,
                .first_arg = op->kind == IR_PTX_OPND_TEXT ? -1 : arg,
                .group = op->group,
                .sinkable = op->sinkable,
                .offset_ok = op->kind == IR_PTX_OPND_ADDR && op->group == 0 &&
                             strcmp(space, "tmem") != 0,
                .braced = op->kind == IR_PTX_OPND_REG && op->lanes && op->lanes[0] != '?',
            };
        }
        arg += lanes;
    }
    return n;
}

int ir_ptx_noperands(const IrPtxResolved *r)
{
    const PtxEntry *e = ptx_entry(r->entry);
    return e ? ptx_operand_count(e, r->slots) : 0;
}
