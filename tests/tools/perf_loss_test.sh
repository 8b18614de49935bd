#!/bin/sh
# perf_loss_test.sh TIRX FILE: a kernel whose wgmma ptxas serializes builds
# (exit 0) with a warning naming the kernel and ptxas's reason and a note on
# the usual causes, and the same reason is in --stats' report (SKIPPED without NVRTC).
set -u
tirx=$1 file=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$tirx" build --target=sm_90a --emit=cubin -o "$dir/k.cubin" "$file" 2>"$dir/err"
rc=$?
[ $rc -eq 3 ] && { echo "SKIPPED: no NVRTC"; exit 0; }
cat "$dir/err"
[ $rc -eq 0 ] || { echo "FAILED: exit $rc"; exit 1; }
want="warning: serialized_kernel: ptxas: potential performance loss: wgmma.mma_async instructions are serialized"
grep -q "$want" "$dir/err" || { echo "FAILED: no warning '$want'"; exit 1; }
[ "$(grep -c 'potential performance loss' "$dir/err")" -eq 1 ] || { echo "FAILED: not one warning"; exit 1; }
grep -q "note: serialized_kernel: ptxas keeps wgmma products in flight together only when" "$dir/err" ||
    { echo "FAILED: no note on the causes"; exit 1; }
echo "ok"
