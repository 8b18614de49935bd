#!/bin/sh
# trace_build_test.sh TIRX KERNEL: KERNEL's T.cuda.iket annotations cost
# nothing without --trace (its CUDA, #line directives aside, is that of the
# kernel with the annotation lines deleted), and with --trace each becomes a
# tx_trace_event call and the kernel builds to a cubin (SKIPPED without NVRTC).
set -u
tirx=$1 kernel=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
grep -q 'T.cuda.iket' "$kernel" || { echo "FAILED: $kernel has no annotations"; exit 1; }
sed '/T\.cuda\.iket\./d' "$kernel" >"$dir/bare.tirx"
"$tirx" build --target=sm_90a "$kernel" | grep -v '^#line' >"$dir/annotated.cu" || exit 1
# the copy imports what the kernel imports, from the kernel's directory
"$tirx" build --target=sm_90a -I "$(dirname "$kernel")" "$dir/bare.tirx" | grep -v '^#line' >"$dir/bare.cu" || exit 1
cmp -s "$dir/annotated.cu" "$dir/bare.cu" || {
    echo "FAILED: the annotations change the CUDA without --trace"
    diff "$dir/bare.cu" "$dir/annotated.cu" | head -20
    exit 1
}
"$tirx" build --trace --target=sm_90a "$kernel" >"$dir/traced.cu" || exit 1
calls=$(grep -c 'tx_trace_event(&tx_trace' "$dir/traced.cu")
annotations=$(grep -c 'T\.cuda\.iket\.' "$kernel")
[ "$calls" -ge "$annotations" ] || { echo "FAILED: $calls trace calls for $annotations annotations"; exit 1; }
"$tirx" build --trace --target=sm_90a --emit=cubin -o "$dir/traced.cubin" "$kernel"
rc=$?
[ $rc -eq 3 ] && { echo "SKIPPED: no NVRTC (the CUDA was checked)"; exit 0; }
[ $rc -eq 0 ] || { echo "FAILED: the traced build's cubin"; exit 1; }
echo "ok: identical without --trace; $calls trace calls with it"
