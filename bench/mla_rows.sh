#!/bin/sh
# The problems of the MLA decode acceptance (bench/RESULTS.md, "MLA decodes
# beside FlashMLA"; b 128, page 64, L2 flushed, medians of >= 30 runs), each
# one `tirx bench mla` run, checked against float64 and timed; beside
# FlashMLA's own kernels when FLASHMLA names libtirx_flashmla.so
# (bench/flashmla/README.md). Each row's JSON lands in OUTDIR; a row that
# fails (a wrong kernel, no GPU) is counted and the rest still run.
#
#   bench/mla_rows.sh [TIRX [OUTDIR]]     (defaults: build/tirx, mla-rows)
#   env: FLASHMLA=LIB, BUDGET_MS (default 200), ROWS=all|dense|sparse,
#        EXTRA='--variant - --variant X=1' (passed to every row)
set -eu
tirx=${1:-build/tirx}
out=${2:-mla-rows}
budget=${BUDGET_MS:-200}
rows=${ROWS:-all}
mkdir -p "$out"
failed=0

row() {
    kind=$1 name=$2
    shift 2
    [ "$rows" = all ] || [ "$rows" = "$kind" ] || return 0
    set -- "$@" --budget-ms "$budget" --json "$out/$name.json"
    [ -z "${FLASHMLA:-}" ] || set -- "$@" --flashmla "$FLASHMLA"
    # shellcheck disable=SC2086 # EXTRA is a list of options
    echo "\$ tirx bench mla $* ${EXTRA:-}"
    # shellcheck disable=SC2086
    "$tirx" bench mla "$@" ${EXTRA:-} || failed=$((failed + 1))
}

# dense bf16, memory-bound (TB/s) and compute-bound (TFLOP/s)
row dense h16 --hq 16
row dense h32 --hq 32
row dense h64 --hq 64
row dense h64-varlen --hq 64 --varlen
row dense h128 --hq 128
row dense h128-sk16384 --hq 128 --sk 16384
row dense h128-sq2 --hq 128 --sq 2
row dense h128-varlen --hq 128 --varlen
# sparse fp8 (s_q 2, s_k 32768)
row sparse topk2048 --topk 2048
row sparse topk16384 --topk 16384
row sparse h64-topk2048 --topk 2048 --hq 64

[ "$failed" -eq 0 ] || { echo "mla_rows.sh: $failed row(s) failed" >&2; exit 1; }
