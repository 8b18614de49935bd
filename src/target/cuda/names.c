/* C identifiers of the generated code: every IR variable gets a unique, valid
 * name derived from its IR name in the order definitions are generated (so
 * the output never depends on pointer values), avoiding C++ keywords, CUDA's
 * built-in names, the prelude's names and the functions the code calls.
 * Temporaries are tx_<n>; user names never start with tx_. */
#include <ctype.h>
#include <string.h>

#include "internal.h"

static const char *const reserved_words[] = {
    /* C++ keywords and literals */
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "const", "constexpr",
    "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try",
    "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq", "NULL",
    /* CUDA */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "clock64", "printf", "min", "max",
    "abs", "llabs", "isnan", "isinf", "isfinite", "memcpy", "atomicAdd", "atomicCAS",
    /* the prelude and the generated file */
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "half", "half2", "half4", "half8", "bfloat16", "bfloat162", "bfloat164", "bfloat168",
    "fp8_e4m3", "fp8_e5m2", "fp8_e8m0", "fp4_e2m1", "fp6_e2m3", "fp6_e3m2", "tx_fpn", "CUtensorMap", "dyn_smem",
};

/* ---------------------------------------------------------------- the set */

static uint64_t name_hash(const char *s)
{
    return tx_hash_bytes(s, strlen(s), 0x7419);
}

static bool set_has(const CgNameSet *s, const char *name)
{
    if (!s->cap)
        return false;
    for (uint64_t i = name_hash(name) & (uint64_t)(s->cap - 1);; i = (i + 1) & (uint64_t)(s->cap - 1)) {
        if (!s->slots[i])
            return false;
        if (!strcmp(s->slots[i], name))
            return true;
    }
}

static void set_insert(CgNameSet *s, const char *name)
{
    for (uint64_t i = name_hash(name) & (uint64_t)(s->cap - 1);; i = (i + 1) & (uint64_t)(s->cap - 1))
        if (!s->slots[i]) {
            s->slots[i] = name;
            s->len++;
            return;
        }
}

static void set_grow(Cg *cg, CgNameSet *s)
{
    CgNameSet bigger = {TX_NEW_ARRAY(&cg->arena, const char *, s->cap ? s->cap * 2 : 256), 0,
                        s->cap ? s->cap * 2 : 256};
    for (int i = 0; i < s->cap; i++)
        if (s->slots[i])
            set_insert(&bigger, s->slots[i]);
    *s = bigger;
}

bool cg_nameset_add(Cg *cg, CgNameSet *s, const char *name)
{
    if (set_has(s, name))
        return false;
    if (2 * (s->len + 1) > s->cap)
        set_grow(cg, s);
    set_insert(s, name);
    return true;
}

/* ---------------------------------------------------------------- names */

static void reserve_all(Cg *cg)
{
    const char *math[128];
    int n = cg_math_names(math, (int)TX_ARRAY_LEN(math));
    for (size_t i = 0; i < TX_ARRAY_LEN(reserved_words); i++)
        cg_nameset_add(cg, &cg->used, reserved_words[i]);
    for (int i = 0; i < n; i++)
        cg_nameset_add(cg, &cg->used, math[i]);
}

/* A valid identifier from an IR name: other characters become '_', names the
 * implementation owns (tx_..., _X..., __...) or starting with a digit get a v. */
static char *sanitize(Cg *cg, const char *name)
{
    size_t n = name && *name ? strlen(name) : 1;
    char *s = tx_arena_alloc(&cg->arena, n + 2);
    char *p = s;
    if (!name || !*name || isdigit((unsigned char)name[0]) || !strncmp(name, "tx_", 3) ||
        (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1]))))
        *p++ = 'v';
    for (const char *q = name ? name : ""; *q; q++)
        *p++ = isalnum((unsigned char)*q) ? *q : '_';
    *p = 0;
    return s;
}

const char *cg_define(Cg *cg, const IrExpr *var)
{
    char *base = sanitize(cg, var->u.var.name);
    const char *name = base;
    for (int k = 1; !cg_nameset_add(cg, &cg->used, name); k++)
        name = cg_printf(cg, "%s_%d", base, k);
    ir_ptrmap_put(&cg->names, var, (uintptr_t)name);
    return name;
}

void cg_alias(Cg *cg, const IrExpr *var, const char *name)
{
    ir_ptrmap_put(&cg->names, var, (uintptr_t)name);
}

const char *cg_name(Cg *cg, const IrExpr *var)
{
    uintptr_t v;
    if (ir_ptrmap_get(&cg->names, var, &v))
        return (const char *)v;
    if (ir_ptrmap_get(&cg->empty, var, NULL)) {
        cg_error(cg, TX_E_CODEGEN, cg->span, "'%s' has no elements (its size is 0) and cannot be accessed",
                 var->u.var.name);
        return "0";
    }
    cg_error(cg, TX_E_CODEGEN, cg_span(cg, var),
             "'%s' is used before its definition in the device function",
             var->u.var.name);
    return "0";
}

const char *cg_temp_name(Cg *cg)
{
    return cg_printf(cg, "tx_%d", cg->ntemps++);
}

void cg_names_reset(Cg *cg)
{
    ir_ptrmap_free(&cg->names);
    cg->used = (CgNameSet){0};
    cg->ntemps = 0;
    reserve_all(cg);
}
