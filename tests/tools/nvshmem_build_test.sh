#!/bin/sh
# nvshmem_build_test.sh TIRX FILECHECK build|missing: NVSHMEM modules end to
# end, run in tests/ on nvshmem/ops.tirx.
#   build    (ctest build.nvshmem) for sm_90a and sm_100a: the CUDA passes the
#            file's CHECK lines, and `tirx build --emit=cubin` compiles it to
#            LTO IR and links it with NVSHMEM's shim and device library (the
#            cubin has the kernels); SKIPPED, with tirx's message, when
#            NVSHMEM, nvJitLink or NVRTC is not there.
#   missing  (ctest err.nvshmem_missing) with TIRX_NVSHMEM_HOME naming a
#            directory without NVSHMEM, the build fails with exactly
#            nvshmem/missing.err (E0806 at the first NVSHMEM call); SKIPPED
#            without NVRTC.
set -u
tirx=$1 filecheck=$2 mode=$3
file=nvshmem/ops.tirx
work=${TMPDIR:-/tmp}/tirx-nvshmem-test.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT

if [ "$mode" = missing ]; then
    TIRX_NVSHMEM_HOME=nvshmem/no-such-nvshmem "$tirx" build --target=sm_90a --emit=cubin \
        -o "$work/missing.cubin" "$file" 2>"$work/missing.err"
    rc=$?
    if [ $rc -eq 3 ] && ! grep -q 'E0806' "$work/missing.err"; then
        echo "SKIPPED: $(grep -m1 error "$work/missing.err")"
        exit 0
    fi
    [ $rc -eq 3 ] || { cat "$work/missing.err"; echo "FAILED: exit status $rc, not 3"; exit 1; }
    cmp -s "$work/missing.err" nvshmem/missing.err ||
        { diff nvshmem/missing.err "$work/missing.err"; echo "FAILED: the missing-NVSHMEM error"; exit 1; }
    echo "$file: missing NVSHMEM reported"
    exit 0
fi

for arch in sm_90a sm_100a; do
    "$tirx" build --target="$arch" "$file" >"$work/ops-$arch.cu" || exit 1
    "$filecheck" --input-file="$work/ops-$arch.cu" "$file" ||
        { echo "FAILED: $file ($arch): FileCheck"; exit 1; }
    "$tirx" build --stats --target="$arch" --emit=cubin -o "$work/ops-$arch.cubin" "$file" \
        >"$work/stats" 2>&1
    rc=$?
    if [ $rc -eq 3 ]; then
        echo "SKIPPED: $(grep -m1 error "$work/stats")"
        exit 0
    fi
    [ $rc -eq 0 ] || { cat "$work/stats"; echo "FAILED: $file ($arch): cubin"; exit 1; }
    for kernel in ring_kernel rank_tiles_kernel; do
        grep -q "^$kernel: " "$work/stats" ||
            { cat "$work/stats"; echo "FAILED: $file ($arch): no $kernel in the cubin"; exit 1; }
    done
    echo "$file: $arch: CUDA checked, cubin linked with NVSHMEM"
done
exit 0
