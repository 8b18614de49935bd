#!/bin/sh
# build_test.sh TIRX FILECHECK FILE: end-to-end compile tests (tests/build/,
# and the examples that use the language helpers). For each target of FILE's
# `# ARCHS:` line, `tirx build` lowers FILE through the whole pipeline to CUDA,
# which must pass FILE's `CHECK:` lines (FileCheck), and then to a cubin with
# NVRTC (ptxas validates every instruction). Each `# BUILD-DEFINES: A=1 B=2`
# line is one more configuration (its -D overrides) built to a cubin for each
# target as well (the CHECK lines apply to the file's own constants). A
# `# BUILD-FLAGS: --trace` line adds its flags to every build. A cubin build
# whose ptxas reports a potential performance loss (wgmma serialized, ...)
# fails the test: the kernel builds, but not as it was written to run.
# Without NVRTC (exit 3) the test reports SKIPPED after the CUDA checks.
set -u
tirx=$1 filecheck=$2 file=$3
archs=$(sed -n 's/^# ARCHS: *//p' "$file")
flags=$(sed -n 's/^# BUILD-FLAGS: *//p' "$file")
[ -n "$archs" ] || { echo "$file: no '# ARCHS:' line"; exit 1; }
skipped=0
out=$(basename "$file" .tirx)
for arch in $archs; do
    "$tirx" build $flags --target="$arch" "$file" >"$out-$arch.cu" || exit 1
    if grep -q "CHECK:" "$file"; then
        "$filecheck" --input-file="$out-$arch.cu" "$file" || { echo "FAILED: $file ($arch): FileCheck"; exit 1; }
    fi
    "$tirx" build $flags --target="$arch" --emit=cubin -o "$out-$arch.cubin" "$file" 2>"$out-$arch.err"
    rc=$?
    cat "$out-$arch.err" >&2
    if grep -q "potential performance loss" "$out-$arch.err"; then
        echo "FAILED: $file ($arch): ptxas reports a potential performance loss"; exit 1
    fi
    [ $rc -eq 3 ] && skipped=1 && continue
    [ $rc -eq 0 ] || { echo "FAILED: $file ($arch): cubin"; exit 1; }
    echo "$file: $arch: CUDA checked, cubin built"
    sed -n 's/^# BUILD-DEFINES: *//p' "$file" | while read -r defines; do
        set --
        for d in $defines; do set -- "$@" -D "$d"; done
        "$tirx" build $flags --target="$arch" --emit=cubin -o "$out-$arch-defines.cubin" "$@" "$file" \
            2>"$out-$arch-defines.err" || { cat "$out-$arch-defines.err" >&2; echo "FAILED: $file ($arch, $defines): cubin"; exit 1; }
        cat "$out-$arch-defines.err" >&2
        if grep -q "potential performance loss" "$out-$arch-defines.err"; then
            echo "FAILED: $file ($arch, $defines): ptxas reports a potential performance loss"; exit 1
        fi
        echo "$file: $arch: $defines: cubin built"
    done || exit 1
done
[ $skipped -eq 0 ] || echo "SKIPPED: no NVRTC (the CUDA was checked)"
exit 0
