/* The targets: architecture names, their numbers and their per-block shared
 * memory limits (the opt-in maxima: 163 KiB on sm_80, 227 KiB on sm_90a and
 * sm_100a), for the passes that check a kernel against its target and for
 * the code generator. */
#include <string.h>

#include "ir.h"

typedef struct Target {
    const char *name;
    int sm;
    int64_t smem;
} Target;

static const Target targets[] = {
    {"sm_80", 80, 163 * 1024}, {"sm_90a", 90, 227 * 1024}, {"sm_100a", 100, 227 * 1024}};

static const Target *target_named(const char *arch)
{
    for (size_t i = 0; arch && i < TX_ARRAY_LEN(targets); i++)
        if (!strcmp(arch, targets[i].name))
            return &targets[i];
    return NULL;
}

int ir_target_sm(const char *arch)
{
    const Target *t = target_named(arch);
    return t ? t->sm : 0;
}

int64_t ir_target_smem_limit(const char *arch)
{
    const Target *t = target_named(arch);
    return t ? t->smem : 0;
}

const char *ir_target_name(int sm)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(targets); i++)
        if (targets[i].sm == sm)
            return targets[i].name;
    return "sm_?";
}
