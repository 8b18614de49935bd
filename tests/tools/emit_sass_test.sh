#!/bin/sh
# emit_sass_test.sh TIRX FILE: `tirx build --emit sass` disassembles the
# cubin of FILE (a wgmma GEMM) with nvdisasm: its kernels' SASS, HGMMA among
# it, on stdout or into -o; with --lineinfo the .tirx lines of the
# instructions among it (none without); --emit sass-lines counts them by
# line; with TIRX_NVDISASM naming no program it fails
# (exit 3) saying so. SKIPPED without NVRTC or without nvdisasm
# (pip install nvidia-cuda-nvdisasm, or the CUDA toolkit's).
set -u
tirx=$1 file=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$tirx" build --target=sm_90a --emit=sass "$file" >"$dir/out" 2>"$dir/err"
rc=$?
if [ $rc -eq 3 ]; then
    grep -q "no nvdisasm" "$dir/err" && { echo "SKIPPED: no nvdisasm"; exit 0; }
    echo "SKIPPED: no NVRTC"
    exit 0
fi
cat "$dir/err"
[ $rc -eq 0 ] || { echo "FAILED: exit $rc"; exit 1; }
grep -q "^\.text\.gemm_wgmma_kernel:" "$dir/out" || { echo "FAILED: no kernel in the SASS"; exit 1; }
grep -q "HGMMA" "$dir/out" || { echo "FAILED: no HGMMA in the SASS"; exit 1; }
"$tirx" build --target=sm_90a --emit=sass -o "$dir/k.sass" "$file" || { echo "FAILED: -o"; exit 1; }
cmp -s "$dir/out" "$dir/k.sass" || { echo "FAILED: -o wrote other text"; exit 1; }
grep -q '//## File' "$dir/out" && { echo "FAILED: line information without --lineinfo"; exit 1; }
"$tirx" build --target=sm_90a --emit=sass --lineinfo "$file" >"$dir/lines" || { echo "FAILED: --lineinfo"; exit 1; }
name=$(basename "$file")
grep -q "//## File \".*/$name\", line [0-9]" "$dir/lines" ||
    { echo "FAILED: --lineinfo: no $name lines in the SASS"; exit 1; }
# --emit sass-lines: the instructions counted by script line (a --lineinfo build), the
# HGMMA at the gemm_async's line with its text, and every line one of FILE's (none counted
# past its end: a statement's generated lines keep its line)
"$tirx" build --target=sm_90a --emit=sass-lines "$file" >"$dir/count" || { echo "FAILED: sass-lines"; exit 1; }
cat "$dir/count"
grep -q "^gemm_wgmma_kernel: [0-9]* instructions$" "$dir/count" || { echo "FAILED: sass-lines: no kernel"; exit 1; }
grep -q "^ *[0-9]* *[0-9]*  .*HGMMA [0-9].*Tx.wg.gemm_async(" "$dir/count" ||
    { echo "FAILED: sass-lines: no HGMMA at the gemm_async's line"; exit 1; }
last=$(wc -l <"$file")
awk -v last="$last" '/^ +[0-9]+ +[0-9]+  / && $1 > last { bad = 1 } END { exit bad }' "$dir/count" ||
    { echo "FAILED: sass-lines: a line past the end of $name"; exit 1; }
TIRX_NVDISASM="$dir/none" "$tirx" build --target=sm_90a --emit=sass "$file" >/dev/null 2>"$dir/err"
rc=$?
[ $rc -eq 3 ] && grep -q "no nvdisasm: TIRX_NVDISASM=$dir/none is not an executable file" "$dir/err" ||
    { echo "FAILED: a missing nvdisasm: exit $rc, $(cat "$dir/err")"; exit 1; }
echo "ok"
