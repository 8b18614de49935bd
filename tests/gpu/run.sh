#!/usr/bin/env bash
# Builds tirx with only the GPU tests (-DTIRX_GPU_TESTS_ONLY=ON: needs cmake, a
# C compiler and the CUDA toolkit's headers; no cmocka, FileCheck or Python)
# and runs every ctest labelled gpu, then prints the executed and skipped
# counts. Without a GPU each test skips (exit 77); with TIRX_REQUIRE_GPU=1 a
# skip for want of a GPU is a failure, so a run on a GPU machine proves that
# everything ran; a test for another architecture (sm_100a on a Hopper) still
# skips, and says so.
#
#   TIRX_REQUIRE_GPU=1 tests/gpu/run.sh [BUILD_DIR]     (default: build-gpu)
#
# A Debug build: the host side of these tests needs no optimisation. Exits with
# ctest's status (2 when the build fails).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpu}
jobs=$(nproc 2>/dev/null || echo 2)

echo "== machine"
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
else
    echo "nvidia-smi: not found"
fi
if command -v nvcc >/dev/null 2>&1; then
    nvcc --version | tail -n 1
else
    echo "nvcc: not on PATH"
fi
echo "TIRX_REQUIRE_GPU=${TIRX_REQUIRE_GPU:-0}"

echo "== build ($build)"
mkdir -p "$build"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTIRX_GPU_TESTS_ONLY=ON &&
       cmake --build "$build" -j "$jobs"; } >"$build/gpu-build.log" 2>&1; then
    tail -n 60 "$build/gpu-build.log"
    echo "gpu: build failed (full log: $build/gpu-build.log)"
    exit 2
fi
echo "built"

echo "== tests"
status=0
(cd "$build" && ctest -L gpu --output-on-failure --timeout 600) 2>&1 | tee "$build/gpu-tests.log" ||
    status=$?

# ctest ends with "100% tests passed out of N" or "P% tests passed, F tests failed out of N".
total=$(grep -oE 'tests (passed|failed) out of [0-9]+' "$build/gpu-tests.log" | tail -n 1 |
        grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '[0-9]+ tests failed out of' "$build/gpu-tests.log" | grep -oE '^[0-9]+' || echo 0)
skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$build/gpu-tests.log" || true)
executed=$((total - skipped))
echo "== summary"
echo "gpu: $((executed - failed)) passed, $failed failed, $skipped skipped ($executed executed of $total)"
exit "$status"
