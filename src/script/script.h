/* The TIRx script front end: lexer, parser (with compile-time constants and
 * macros elaborated) and printer. One syntax both ways: for every accepted
 * text x, print(parse(x)) is a fixpoint of print∘parse. Prefix: sc_. */
#ifndef TX_SCRIPT_H
#define TX_SCRIPT_H

#include "../ir/ir.h"

typedef struct ScDefine {
    const char *name, *value;
} ScDefine;

/* Parse a source into a new module. Diagnostics go to the module; when any
 * error was reported, the module's functions must not be used. */
IrModule *sc_parse(const char *text, size_t len, const char *filename, const ScDefine *defines,
                   size_t ndefines);
/* sc_parse, its imports of .tirx files searched in the importing file's
 * directory and then in dirs[0..ndirs) (docs/language.md, "Imports"). The
 * files read are m->imports. */
IrModule *sc_parse_imports(const char *text, size_t len, const char *filename,
                           const ScDefine *defines, size_t ndefines, const char *const *dirs,
                           size_t ndirs);
/* The most bytes a source can hold (its offsets are 32-bit); sc_parse refuses more. */
#define SC_MAX_SOURCE_BYTES ((size_t)UINT32_MAX)
/* When `len` bytes are more than `limit` or than a source can hold, a new
 * module carrying the error (E0007) that says so, naming `filename`; else NULL. */
IrModule *sc_refuse_large_input(const char *filename, size_t len, size_t limit);

/* Parse `text` as one layout expression (T.TileLayout(...), T.ComposeLayout(...),
 * T.tmem_datapath_layout(...)) with m's arena; m->source becomes the text,
 * named `filename`. Diagnostics go to m; NULL after an error. */
IrLayout *sc_parse_layout(IrModule *m, const char *text, size_t len, const char *filename);

/* True when tile op `op`'s one-operand form `op(dst)` reads as op(dst, dst):
 * its second argument defaults to the first (tile_ops.def). */
bool sc_tile_reads_in_place(IrTileOp op);

/* The canonical text of a module (no trailing newline); the caller frees it. */
char *sc_print(const IrModule *m);

#endif
