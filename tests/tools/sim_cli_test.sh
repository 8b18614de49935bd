#!/bin/sh
# cli.sim: `tirx sim` runs examples/vector_add.tirx on random a and zero b (c
# must come out as a: the same checksum), runs a kernel with T.cuda.iket
# annotations (they record nothing without --trace; with --trace and
# --trace-svg the modelled trace of every warp is written), reports a planted out-of-bounds
# read at its line with exit status 1, and a missing --func with status 2;
# the register all-reduce (tests/build/reduce_allreduce.tirx) gives its quads' totals.
# Usage: sim_cli_test.sh TIRX SOURCE_DIR
set -u
tirx=$1
src=$2
out=$("$tirx" sim "$src/examples/vector_add.tirx" --func vector_add --seed 7 \
      --args 'a=rand(1000:f32) b=zeros(1000:f32) c=empty(1000:f32) n=1000' 2>/dev/null) || {
    echo "FAIL: vector_add did not simulate"; exit 1; }
a=$(echo "$out" | sed -n 's/^a: 1000 float32 \(sum=.*\)$/\1/p')
c=$(echo "$out" | sed -n 's/^c: 1000 float32 \(sum=.*\)$/\1/p')
if [ -z "$a" ] || [ "$a" != "$c" ]; then
    echo "FAIL: c is not a:"; echo "$out"; exit 1
fi
out=$("$tirx" sim "$src/tests/build/iket_trace.tirx" --func traced_scale \
      --args 'A=ones(1000:f32) n=1000' 2>&1)
case "$out" in
*"A: 1000 float32 sum=2000 "*) ;;
*) echo "FAIL: the annotated kernel: $out"; exit 1 ;;
esac
out=$("$tirx" sim "$src/tests/build/reduce_allreduce.tirx" --func allreduce \
      --args 'out=zeros(32,2:f32) mx=zeros(32,2:f32)' 2>&1)
case "$out" in
*"out: 32x2 float32 sum=2112 "*"mx: 32x2 float32 sum=576 "*) ;;
*) echo "FAIL: the all-reduce: $out"; exit 1 ;;
esac
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$tirx" sim "$src/tests/build/iket_trace.tirx" --func traced_scale --args 'A=ones(1000:f32) n=1000' \
    --trace "$dir/t.json" --trace-svg "$dir/t.svg" >/dev/null 2>&1 || {
    echo "FAIL: the traced simulation"; exit 1; }
[ "$(grep -c '"name": "cta", "ph": "X"' "$dir/t.json")" -eq 16 ] || {
    echo "FAIL: a cta span per warp in the JSON"; cat "$dir/t.json"; exit 1; }
grep -q '"dropped_records": 0, "unpaired_ranges": 0' "$dir/t.json" || {
    echo "FAIL: records dropped or unpaired"; exit 1; }
grep -q '>CTA 3 warp 3</text>' "$dir/t.svg" || { echo "FAIL: the SVG's last warp"; exit 1; }
"$tirx" sim "$src/tests/build/iket_trace.tirx" --func traced_scale --args 'A=ones(8:f32) n=8' \
    --trace "$dir/t.svg" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --trace with an .svg name is not refused"; exit 1; }
err=$("$tirx" sim "$src/tests/tools/sim_bug.tirx" --func shift \
      --args 'X=rand(64:f32) Y=empty(64:f32)' 2>&1 >/dev/null)
rc=$?
case "$err" in
*"sim_bug.tirx:11:"*"error: index 64 is out of bounds of S"*"thread (63,0,0) of CTA (0,0,0)"*) ;;
*) echo "FAIL: the planted bug's message: $err"; exit 1 ;;
esac
[ $rc -eq 1 ] || { echo "FAIL: exit status $rc for a kernel error"; exit 1; }
"$tirx" sim "$src/examples/vector_add.tirx" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: exit status $rc for a usage error"; exit 1; }
echo "ok"
