/* Imports of .tirx files: `from NAME import a, b as c` (or `*`) at module
 * level loads the file NAME names (dots are directories: `from lib.gemm`
 * is lib/gemm.tirx), searched in the importing file's directory and then in
 * the import directories (-I, tirx_options.import_dirs); `from .NAME`
 * searches the importing file's directory only. A file given as text without
 * a path (a name in angle brackets, "<stdin>") has no directory. The file is
 * elaborated once per module, as Python runs a module once: its
 * module-level names (constants, macros, its own imports) are its own, its
 * functions are not the importer's, and a macro imported from it looks its
 * free names up there (ScVal u.macro.home). Only macros and compile-time
 * constants can be imported. Errors inside an imported file point into it,
 * with a note at each import that loaded it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"

bool el_is_file_import(const Ast *s)
{
    if (!s->name)
        return false; /* `import x`: kept for the reference's spelling, binds nothing */
    if (s->nnames)
        return true;
    static const char *const foreign[] = {"tvm", "typing", "__future__"};
    size_t root = strcspn(s->name, ".");
    for (size_t i = 0; i < TX_ARRAY_LEN(foreign); i++)
        if (strlen(foreign[i]) == root && !strncmp(s->name, foreign[i], root))
            return false;
    return true;
}

void el_import_notes(El *E)
{
    for (const ScImportSite *st = E->site; st; st = st->parent)
        tx_note(E->d, st->span, "in module '%s' imported here", st->module);
}

/* ---------------------------------------------------------------- finding the file */

/* The directory of the file `name` names ("" for the current one), or NULL
 * when the source is not a file ("<stdin>", "<string>"). */
static const char *source_dir(El *E, const char *name)
{
    if (!name[0] || name[0] == '<')
        return NULL;
    const char *slash = strrchr(name, '/');
    return slash ? tx_arena_strndup(E->a, name, (size_t)(slash - name + 1)) : "";
}

/* dir + NAME with its dots as slashes + ".tirx" */
static const char *module_path(El *E, const char *dir, const char *module)
{
    size_t nd = strlen(dir);
    char *p = tx_arena_printf(E->a, "%s%s%s.tirx", dir, nd && dir[nd - 1] != '/' ? "/" : "",
                              module);
    for (char *c = p + nd; *c; c++)
        if (*c == '.' && strcmp(c, ".tirx"))
            *c = '/';
    return p;
}

typedef struct Found {
    const char *path;
    char *text; /* malloc'd */
    size_t len;
} Found;

/* Try one candidate: true when it is read (or cannot be read for another
 * reason than its absence, which is reported). */
static bool try_path(El *E, const Ast *s, const char *path, Found *f, TxBuf *tried)
{
    errno = 0;
    f->text = tx_read_file(path, &f->len);
    if (f->text) {
        f->path = path;
        return true;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
        el_error(E, TX_E_IMPORT, s->name_span, "cannot read '%s' (module '%s'): %s", path,
                 s->name, strerror(errno));
        return true;
    }
    tx_buf_printf(tried, "%s%s", tried->len ? ", " : "", path);
    return false;
}

/* The first file of the search path that exists, read into *f (f->text NULL
 * after an error, which is reported). */
static void find_module(El *E, const Ast *s, Found *f)
{
    const char *dir = source_dir(E, E->src->name);
    *f = (Found){0};
    if (s->nnames > 1) {
        el_error(E, TX_E_IMPORT, s->name_span,
                 "a relative import names a file of the importing file's directory: "
                 "'from .%s', not %d dots", s->name, s->nnames);
        return;
    }
    if (s->nnames && !dir) {
        el_error(E, TX_E_IMPORT, s->name_span,
                 "'%s' is not a file, so it has no directory for the relative import "
                 "'from .%s' (import '%s' from an import directory: -I DIR)",
                 E->src->name, s->name, s->name);
        return;
    }
    TxBuf tried = {0};
    bool done = dir && try_path(E, s, module_path(E, dir, s->name), f, &tried);
    for (size_t i = 0; !done && !s->nnames && i < E->imports->ndirs; i++)
        done = try_path(E, s, module_path(E, E->imports->dirs[i], s->name), f, &tried);
    if (!done && tried.len)
        el_error(E, TX_E_IMPORT, s->name_span, "no module named '%s' (searched %s)", s->name,
                 tried.data);
    else if (!done)
        el_error(E, TX_E_IMPORT, s->name_span,
                 "no module named '%s': '%s' is not a file, so only the import directories "
                 "are searched, and none was given (-I DIR)",
                 s->name, E->src->name);
    tx_buf_free(&tried);
}

/* ---------------------------------------------------------------- loading it */

static ScImportFile *file_of(El *E, const char *id)
{
    for (int i = 0; i < E->imports->nfiles; i++)
        if (!strcmp(E->imports->files[i]->id, id))
            return E->imports->files[i];
    return NULL;
}

static ScImportFile *add_file(El *E, const char *id, const TxSource *src)
{
    ScImports *im = E->imports;
    if (im->nfiles == im->capfiles) {
        im->capfiles = im->capfiles ? im->capfiles * 2 : 4;
        ScImportFile **fs = TX_NEW_ARRAY(E->a, ScImportFile *, im->capfiles);
        el_copy(fs, im->files, sizeof(*fs) * (size_t)im->nfiles);
        im->files = fs;
    }
    IrModule *m = E->m;
    const TxSource **srcs = TX_NEW_ARRAY(E->a, const TxSource *, m->nimports + 1);
    el_copy(srcs, m->imports, sizeof(*srcs) * (size_t)m->nimports);
    srcs[m->nimports++] = src;
    m->imports = srcs;
    ScImportFile *file = TX_NEW(E->a, ScImportFile);
    file->id = id, file->src = src;
    return im->files[im->nfiles++] = file;
}

/* "a -> b -> a": the imports from the file `id` to the one closing the cycle. */
static const char *cycle_text(El *E, const Ast *s, const char *id)
{
    const char *text = s->name;
    for (const ScImportSite *st = E->site; st; st = st->parent) {
        text = tx_arena_printf(E->a, "%s -> %s", st->module, text);
        if (!strcmp(st->file_id, id))
            break;
    }
    return text;
}

/* Lex, parse and elaborate the module level of a new file. */
static void load_file(El *E, const Ast *s, ScImportFile *file)
{
    ScImportSite site = {E->site, s->name_span, s->name, file->id};
    El F = {.m = E->m, .a = E->a, .d = E->d, .src = file->src, .imports = E->imports,
            .site = &site};
    int errors = E->d->nerrors;
    ScScope *global = TX_NEW(E->a, ScScope);
    global->module = true;
    file->global = global;
    file->loading = true;
    ScTokens toks;
    AstList top;
    bool ok = sc_lex(file->src, 0, file->src->len, false, E->a, E->d, &toks) &&
              sc_parse_tokens(file->src, &toks, false, E->a, NULL, E->d, &top);
    sc_tokens_free(&toks);
    if (!ok) {
        el_import_notes(&F);
        file->failed = true, file->loading = false;
        return;
    }
    F.global = F.scope = global;
    F.define_used = TX_NEW(E->a, bool);
    file->failed = !el_module_level(&F, top) || E->d->nerrors > errors;
    file->loading = false;
}

/* The file of the import s, loaded once; NULL after an error (reported). */
static ScImportFile *import_file(El *E, const Ast *s)
{
    Found f;
    find_module(E, s, &f);
    if (!f.text)
        return NULL;
    char *real = realpath(f.path, NULL);
    const char *id = tx_arena_strdup(E->a, real ? real : f.path);
    free(real);
    ScImportFile *file = file_of(E, id);
    if (!file && f.len > SC_MAX_SOURCE_BYTES) {
        el_error(E, TX_E_INPUT_SIZE, s->name_span, "'%s' (module '%s') is larger than 4 GiB",
                 f.path, s->name);
    } else if (!file) {
        file = add_file(E, id, tx_source_new(E->a, f.path, f.text, f.len));
        free(f.text);
        load_file(E, s, file);
        return file;
    } else if (file->loading) {
        el_error(E, TX_E_IMPORT, s->name_span, "import cycle: %s", cycle_text(E, s, id));
        file = NULL;
    }
    free(f.text);
    return file;
}

/* ---------------------------------------------------------------- binding its names */

static bool importable(const ScBinding *b)
{
    return b->val.kind == SV_MACRO || b->kind == BIND_CONST;
}

static void bind_imported(El *E, const ScBinding *b, const Ast *as)
{
    el_bind(E, as->name, b->val, b->kind == BIND_CONST ? BIND_CONST : BIND_PLAIN, as->span);
}

/* The names of file that can be imported, for a suggestion. */
static int importable_names(El *E, const ScImportFile *file, const char ***out)
{
    int n = 0;
    *out = TX_NEW_ARRAY(E->a, const char *, file->global->nbindings + 1);
    for (const ScBinding *b = file->global->head; b; b = b->next)
        if (importable(b))
            (*out)[n++] = b->name;
    return n;
}

static void import_name(El *E, const Ast *s, const ScImportFile *file, const Ast *n)
{
    const Ast *as = n->a ? n->a : n;
    const ScBinding *b = el_scope_find(file->global, n->name);
    if (b && importable(b)) {
        bind_imported(E, b, as);
        return;
    }
    el_bind(E, as->name, sv_error(), BIND_PLAIN, as->span);
    if (b) {
        el_error(E, TX_E_IMPORT, n->span,
                 "'%s' of module '%s' is %s: only macros and compile-time constants can be "
                 "imported", n->name, s->name, sv_kind_name(&b->val));
        return;
    }
    const char **names;
    int count = importable_names(E, file, &names);
    el_error(E, TX_E_IMPORT, n->span, "cannot import name '%s' from '%s' (%s)%s", n->name,
             s->name, file->src->name, el_suggest(E, n->name, names, count));
}

void el_import_file(El *E, const Ast *s)
{
    ScImportFile *file = import_file(E, s);
    if (!file || file->failed) { /* reported: its names are errors, not unknown names */
        for (int i = 0; i < s->items.n; i++) {
            const Ast *n = s->items.items[i];
            el_bind(E, (n->a ? n->a : n)->name, sv_error(), BIND_PLAIN, n->span);
        }
        return;
    }
    if (s->op == SC_TK_STAR) {
        for (const ScBinding *b = file->global->head; b; b = b->next)
            if (importable(b) && b->name[0] != '_') {
                Ast as = {.kind = A_NAME, .name = b->name, .span = s->span};
                bind_imported(E, b, &as);
            }
        return;
    }
    for (int i = 0; i < s->items.n; i++)
        import_name(E, s, file, s->items.items[i]);
}
