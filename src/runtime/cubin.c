/* Kernel resources read from a cubin itself, for a compile whose log has no
 * ptxas report (an NVRTC that leaves it out, a cache entry whose log lacks
 * it). A cubin is a little-endian ELF64 file for EM_CUDA; its kernels are the
 * STT_FUNC symbols whose st_other carries STO_CUDA_ENTRY (a non-inlined device
 * function is an STT_FUNC without it). Per kernel: registers from the
 * EIATTR_REGCOUNT attribute of the .nv.info sections (keyed by symbol index;
 * toolkits before 13 also kept them in sh_info >> 24 of the kernel's .text
 * section), the stack frame from EIATTR_FRAME_SIZE (same shape), named
 * barriers from EIATTR_NUM_BARRIERS in the kernel's own .nv.info.<name> (its
 * sh_info is the kernel's .text section), and static shared memory from the
 * size of .nv.shared.<name> (sh_info likewise), less the 1 KB the system
 * reserves at the start of a block's shared memory on sm_90 and newer, which
 * that section includes there. Spills are not recorded in a cubin: they read
 * -1, unknown. An attribute record is a format byte, an attribute byte, then
 * for EIFMT_SVAL a u16 size and that many payload bytes; the other formats
 * carry two value bytes. Every offset, size and index is checked before it is
 * used, and a cubin with anything out of place (truncated, a section or
 * string outside the file, a record running past its section) yields no
 * kernels. unit.runtime_cubin checks these figures against ptxas's report for
 * every kernel of examples/ and kernels/. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "runtime.h"

enum {
    EHDR_BYTES = 64,
    SHDR_BYTES = 64,
    SYM_BYTES = 24,
    EM_CUDA = 190,
    SHT_SYMTAB = 2,
    SHT_NOBITS = 8,
    SHT_CUDA_INFO = 0x70000000,
    STT_FUNC = 2,
    STO_CUDA_ENTRY = 0x10,
    EIFMT_BVAL = 2,
    EIFMT_SVAL = 4,
    EIATTR_FRAME_SIZE = 0x11,
    EIATTR_REGCOUNT = 0x2f,
    EIATTR_NUM_BARRIERS = 0x4c,
    RESERVED_SMEM_BYTES = 1024, /* sm_90 and newer */
};

typedef struct Elf {
    const uint8_t *p;
    size_t size;
    uint64_t shoff;
    unsigned shnum, shstrndx;
    int sm; /* the real architecture, 90 for sm_90a */
} Elf;

typedef struct Shdr {
    uint32_t name, type, link, info;
    uint64_t offset, size;
} Shdr;

/* A kernel found in the symbol table, with the stats read so far. */
typedef struct Found {
    uint32_t sym, text;
    RtKernelStats s;
} Found;

typedef TX_VEC(Found) FoundList;

static uint64_t le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int clamp_int(uint64_t v) { return v > INT_MAX ? INT_MAX : (int)v; }

static bool in_file(const Elf *e, uint64_t off, uint64_t n)
{
    return off <= e->size && n <= e->size - off;
}

/* Section i; false when it does not exist or, holding data, lies outside the file. */
static bool section(const Elf *e, uint64_t i, Shdr *s)
{
    if (i >= e->shnum)
        return false;
    const uint8_t *h = e->p + e->shoff + i * SHDR_BYTES;
    *s = (Shdr){.name = (uint32_t)le(h, 4), .type = (uint32_t)le(h + 4, 4),
                .offset = le(h + 24, 8), .size = le(h + 32, 8),
                .link = (uint32_t)le(h + 40, 4), .info = (uint32_t)le(h + 44, 4)};
    return s->type == SHT_NOBITS || in_file(e, s->offset, s->size);
}

/* The NUL-terminated string at `off` of string table `tab`; NULL when it runs out. */
static const char *string_at(const Elf *e, const Shdr *tab, uint64_t off)
{
    if (tab->type == SHT_NOBITS || off >= tab->size)
        return NULL;
    const char *s = (const char *)e->p + tab->offset + off;
    return memchr(s, '\0', tab->size - off) ? s : NULL;
}

static bool read_header(const uint8_t *p, size_t size, Elf *e)
{
    if (size < EHDR_BYTES || memcmp(p, "\177ELF\2\1", 6) != 0 || le(p + 18, 2) != EM_CUDA ||
        le(p + 58, 2) != SHDR_BYTES)
        return false;
    uint64_t flags = le(p + 48, 4);
    /* ELF ABI version 8 (CUDA 13) moved the architecture from bits 0-7 to 8-15 */
    *e = (Elf){.p = p, .size = size, .shoff = le(p + 40, 8), .shnum = (unsigned)le(p + 60, 2),
               .shstrndx = (unsigned)le(p + 62, 2),
               .sm = (int)(p[8] >= 8 ? flags >> 8 & 0xff : flags & 0xff)};
    return in_file(e, e->shoff, (uint64_t)e->shnum * SHDR_BYTES);
}

/* The kernels of the symbol table, in symbol order. */
static bool find_kernels(const Elf *e, FoundList *out)
{
    Shdr tab, str, text;
    uint64_t i = 0;
    while (i < e->shnum && !(section(e, i, &tab) && tab.type == SHT_SYMTAB))
        i++;
    if (i == e->shnum)
        return false;
    if (tab.size % SYM_BYTES || !section(e, tab.link, &str))
        return false;
    for (uint64_t k = 0; k < tab.size / SYM_BYTES; k++) {
        const uint8_t *sym = e->p + tab.offset + k * SYM_BYTES;
        if ((sym[4] & 0xf) != STT_FUNC || !(sym[5] & STO_CUDA_ENTRY))
            continue;
        const char *name = string_at(e, &str, le(sym, 4));
        uint32_t shndx = (uint32_t)le(sym + 6, 2);
        if (!name || !*name || shndx == 0 || !section(e, shndx, &text))
            return false;
        Found f = {.sym = (uint32_t)k, .text = shndx,
                   .s = {.name = strdup(name), .registers = (int)(text.info >> 24),
                         .spill_store_bytes = -1, .spill_load_bytes = -1}};
        tx_vec_push(out, f);
    }
    return true;
}

static Found *by_symbol(FoundList *k, uint64_t sym)
{
    int lo = 0, hi = k->len;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (k->items[mid].sym == sym)
            return &k->items[mid];
        if (k->items[mid].sym < sym)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* One .nv.info section's records; `own` is the kernel the section belongs to, if any. */
static bool read_info(const Elf *e, const Shdr *s, FoundList *k, Found *own)
{
    const uint8_t *p = e->p + s->offset, *end = p + s->size;
    while (p < end) {
        if (end - p < 4)
            return false;
        uint64_t n = p[0] == EIFMT_SVAL ? le(p + 2, 2) : 0;
        if ((uint64_t)(end - p - 4) < n)
            return false;
        Found *f = n == 8 ? by_symbol(k, le(p + 4, 4)) : NULL;
        if (f && p[1] == EIATTR_REGCOUNT)
            f->s.registers = clamp_int(le(p + 8, 4));
        else if (f && p[1] == EIATTR_FRAME_SIZE)
            f->s.stack_bytes = clamp_int(le(p + 8, 4));
        else if (own && p[0] == EIFMT_BVAL && p[1] == EIATTR_NUM_BARRIERS)
            own->s.barriers = p[2];
        p += 4 + n;
    }
    return true;
}

static void read_shared(const Elf *e, const Shdr *s, const char *name, Found *own)
{
    static const char prefix[] = ".nv.shared.";
    if (!own || strncmp(name, prefix, sizeof prefix - 1) || strcmp(name + sizeof prefix - 1, own->s.name))
        return;
    uint64_t reserved = e->sm >= 90 ? RESERVED_SMEM_BYTES : 0;
    own->s.smem_bytes = clamp_int(s->size > reserved ? s->size - reserved : 0);
}

/* The attributes and shared memory sections, onto the kernels. */
static bool read_sections(const Elf *e, FoundList *k, const Shdr *names)
{
    int *by_text = calloc(e->shnum + 1, sizeof *by_text); /* section -> kernel + 1 */
    if (!by_text)
        return false;
    for (int i = 0; i < k->len; i++)
        by_text[k->items[i].text] = i + 1;
    bool ok = true;
    for (unsigned i = 0; ok && i < e->shnum; i++) {
        Shdr s;
        const char *name = section(e, i, &s) ? string_at(e, names, s.name) : NULL;
        if (!name) {
            ok = false;
            break;
        }
        Found *own = s.info < e->shnum && by_text[s.info] ? &k->items[by_text[s.info] - 1] : NULL;
        if (s.type == SHT_CUDA_INFO)
            ok = read_info(e, &s, k, own);
        else if (s.type == SHT_NOBITS)
            read_shared(e, &s, name, own);
    }
    free(by_text);
    return ok;
}

bool rt_cubin_kernels(const void *cubin, size_t size, RtKernelStats **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    Elf e;
    Shdr names;
    FoundList k = {0};
    bool ok = cubin && read_header(cubin, size, &e) && section(&e, e.shstrndx, &names) &&
              find_kernels(&e, &k) && read_sections(&e, &k, &names);
    if (ok && k.len) {
        *out = calloc((size_t)k.len, sizeof **out);
        ok = *out != NULL;
    }
    for (int i = 0; i < k.len; i++) {
        if (ok)
            (*out)[i] = k.items[i].s;
        else
            free(k.items[i].s.name);
    }
    if (ok)
        *n = (size_t)k.len;
    tx_vec_free(&k);
    return ok;
}
