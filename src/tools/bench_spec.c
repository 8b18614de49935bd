/* The --args SPEC of `tirx bench FILE`: the function's arguments in order,
 * each NAME=VALUE, separated by whitespace:
 *
 *     spec   := item (space+ item)*
 *     item   := NAME '=' (tensor | number)
 *     tensor := INIT '(' dim (',' dim)* ':' DTYPE ')'     INIT: rand zeros ones empty
 *     number := an integer (int argument) or a decimal with '.' or an exponent (float)
 *
 * DTYPE is a TIRx dtype name or its short alias (bench_data.c). Spaces may
 * stand around the punctuation inside the parentheses. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct Scanner {
    const char *text, *p;
    char *msg;
    size_t msg_size;
} Scanner;

static const char *const init_names[] = {"rand", "zeros", "ones", "empty"};

static bool fail(Scanner *s, const char *fmt, ...)
{
    int n = snprintf(s->msg, s->msg_size, "--args: column %d: ", (int)(s->p - s->text) + 1);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < s->msg_size)
        vsnprintf(s->msg + n, s->msg_size - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static void skip_space(Scanner *s)
{
    while (isspace((unsigned char)*s->p))
        s->p++;
}

/* [A-Za-z_][A-Za-z0-9_]* into buf (cut to fit, NUL-terminated); its full
 * length (0: none; size or more: too long for buf). */
static size_t word(Scanner *s, char *buf, size_t size)
{
    size_t n = 0;
    if (isalpha((unsigned char)*s->p) || *s->p == '_')
        while (isalnum((unsigned char)s->p[n]) || s->p[n] == '_')
            n++;
    size_t keep = n < size ? n : size - 1;
    memcpy(buf, s->p, keep);
    buf[keep] = 0;
    s->p += n;
    return n;
}

static bool expect(Scanner *s, char c, const char *after)
{
    skip_space(s);
    if (*s->p != c)
        return fail(s, "expected '%c' %s", c, after);
    s->p++;
    return true;
}

/* dim (',' dim)* */
static bool dims(Scanner *s, BenchArg *a)
{
    for (a->ndim = 0;;) {
        skip_space(s);
        if (a->ndim == BENCH_MAX_DIMS)
            return fail(s, "a tensor has at most %d dimensions", BENCH_MAX_DIMS);
        char *end;
        errno = 0;
        long long d = isdigit((unsigned char)*s->p) ? strtoll(s->p, &end, 10) : -1;
        if (d < 1 || errno)
            return fail(s, "expected a positive dimension of '%s'", a->name);
        s->p = end;
        a->shape[a->ndim++] = d;
        skip_space(s);
        if (*s->p != ',')
            return true;
        s->p++;
    }
}

/* INIT '(' dims ':' DTYPE ')' with INIT already read into init. */
static bool tensor(Scanner *s, BenchArg *a, const char *init)
{
    size_t k = 0;
    while (k < 4 && strcmp(init, init_names[k]))
        k++;
    if (k == 4)
        return fail(s, "unknown initializer '%s' of '%s' (rand, zeros, ones or empty)", init,
                    a->name);
    a->is_tensor = true;
    a->init = (BenchInit)k;
    if (!expect(s, '(', "after the initializer") || !dims(s, a) ||
        !expect(s, ':', "and the dtype after the dimensions (e.g. rand(64,64:bf16))"))
        return false;
    char dt[32];
    skip_space(s);
    const char *at = s->p;
    size_t n = word(s, dt, sizeof dt);
    if (!n || n >= sizeof dt || !(a->dtype = bench_dtype(dt))) {
        s->p = at;
        return fail(s, "%s%s%s'%s' (float32/f32, float16/fp16, bfloat16/bf16, "
                       "float8_e4m3fn/fp8, float8_e5m2/e5m2, float64/f64, int8/i8 .. int64/i64, "
                       "uint8/u8 .. uint64/u64)", n ? "unknown dtype '" : "expected a dtype",
                    n ? dt : "", n ? "' of " : " of ", a->name);
    }
    /* its bytes must be countable: a product that wrapped would allocate a
     * few bytes for a kernel that addresses the whole shape */
    int64_t bytes = a->dtype->bits / 8;
    for (int i = 0; i < a->ndim; i++)
        if (__builtin_mul_overflow(bytes, a->shape[i], &bytes) || bytes > BENCH_MAX_TENSOR_BYTES) {
            s->p = at;
            return fail(s, "'%s' is larger than 2^48 bytes", a->name);
        }
    return expect(s, ')', "after the dtype");
}

static bool number(Scanner *s, BenchArg *a)
{
    const char *start = s->p;
    while (*s->p && !isspace((unsigned char)*s->p))
        s->p++;
    char buf[64], *end;
    size_t n = (size_t)(s->p - start);
    if (n == 0 || n >= sizeof buf) {
        s->p = start;
        return fail(s, "expected a number or a tensor such as rand(64,64:bf16) for '%s'", a->name);
    }
    memcpy(buf, start, n);
    buf[n] = 0;
    errno = 0;
    a->i = strtoll(buf, &end, 10);
    if (!*end && !errno)
        return true;
    errno = 0;
    a->f = strtod(buf, &end);
    a->is_float = true;
    if (!*end && !errno && strpbrk(buf, ".eE"))
        return true;
    s->p = start;
    return fail(s, "'%s' is not a number or a tensor such as rand(64,64:bf16) (for '%s')", buf,
                a->name);
}

static bool item(Scanner *s, BenchArg *a)
{
    memset(a, 0, sizeof *a);
    size_t n = word(s, a->name, sizeof a->name);
    if (!n)
        return fail(s, "expected an argument NAME=VALUE");
    if (n >= sizeof a->name)
        return fail(s, "argument name longer than %d characters", (int)sizeof a->name - 1);
    if (*s->p != '=')
        return fail(s, "expected '=' after '%s'", a->name);
    s->p++;
    char init[16];
    const char *at = s->p;
    size_t k = word(s, init, sizeof init);
    skip_space(s);
    if (k && *s->p == '(')
        return tensor(s, a, init);
    s->p = at;
    return number(s, a);
}

bool bench_parse_spec(const char *spec, BenchArg *args, int *nargs, char *msg, size_t msg_size)
{
    Scanner s = {spec, spec, msg, msg_size};
    skip_space(&s);
    while (*s.p) {
        if (*nargs == BENCH_MAX_ARGS)
            return fail(&s, "at most %d arguments", BENCH_MAX_ARGS);
        if (!item(&s, &args[*nargs]))
            return false;
        for (int i = 0; i < *nargs; i++)
            if (!strcmp(args[i].name, args[*nargs].name))
                return fail(&s, "argument '%s' is given twice", args[i].name);
        ++*nargs;
        if (*s.p && !isspace((unsigned char)*s.p))
            return fail(&s, "expected a space before the next argument");
        skip_space(&s);
    }
    return true;
}

size_t bench_arg_elems(const BenchArg *a)
{
    size_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        n *= (size_t)a->shape[i];
    return n;
}
