#!/bin/sh
# nomem_test.sh TIRX: `tirx check` of an input that needs more memory than
# the process may have (ulimit -v: 100 MB; 100,000 functions, about 7 MB,
# need several times that) says it ran out of memory and exits 70,
# without a signal. (Not run in sanitizer builds, whose shadow memory needs
# the address space.)
set -u
tirx=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
awk 'BEGIN {
    for (i = 0; i < 100000; i++)
        printf "@T.prim_func\ndef f%d(A: T.Buffer((16,), \"float32\")):\n    A[0] = T.float32(1)\n\n", i
}' >"$dir/funcs.tirx"
err=$( (ulimit -v 100000 && exec "$tirx" check "$dir/funcs.tirx") 2>&1)
rc=$?
[ "$rc" = 70 ] || { echo "FAILED: exit status $rc, not 70: $err"; exit 1; }
[ "$err" = "tirx: out of memory" ] || { echo "FAILED: stderr is: $err"; exit 1; }
