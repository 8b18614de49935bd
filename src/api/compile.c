/* tirx_compile and what a compiled module holds. */
#include "internal.h"

#include <stdlib.h>

struct ApiCompiled {
    char *cuda;
};

void api_compiled_free(ApiCompiled *c)
{
    if (!c)
        return;
    free(c->cuda);
    free(c);
}
