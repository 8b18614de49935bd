#!/usr/bin/env bash
# Runs a fuzz target (fuzz_parse or fuzz_pipeline) for a bounded time:
#   tests/fuzz/run.sh FUZZER [SECONDS] [extra libFuzzer flags...]
# Seeds: tests/fuzz/corpus (curated) plus the script, diagnostics and reference
# corpora and the examples, read in place. New inputs go to a work directory
# beside FUZZER, findings/NAME for the target NAME (FUZZ_WORK overrides it),
# crashes to its artifacts/ folder.
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: run.sh FUZZER [SECONDS] [libFuzzer flags...]" >&2
    exit 2
fi
fuzzer=$1
seconds=${2:-60}
shift $(($# < 2 ? $# : 2))
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${FUZZ_WORK:-$(dirname "$fuzzer")/findings/$(basename "$fuzzer")}
mkdir -p "$work/corpus" "$work/artifacts"
seeds=()
for d in tests/fuzz/corpus tests/script tests/err tests/reference/expected examples; do
    [ -d "$root/$d" ] && seeds+=("$root/$d")
done
exec "$fuzzer" -dict="$root/tests/fuzz/tirx.dict" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
    "$@" "$work/corpus" "${seeds[@]}"
