#!/bin/sh
# `make demo`: compile every example, then run and check them on a GPU.
#
#   examples/run_demo.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/tirx
#                                          and BUILD_DIR/examples/tirx_demo)
#
# 1. Each examples/*.tirx is compiled for sm_90a by `tirx build`: to a cubin
#    when NVRTC is available (ptxas has accepted the kernels; --stats shows
#    their registers and shared memory), else to CUDA C++ only (the whole
#    pipeline and code generation, no toolkit needed). Outputs: BUILD_DIR/demo/.
# 2. tirx_demo (examples/demo.c) runs each example on GPU 0 with fresh random
#    inputs and poisoned outputs, checks it against a float64 CPU reference
#    (copies bit for bit) and prints a table: kernel, size, check, time.
#    Without a driver or GPU the runs are skipped (exit 0), unless
#    TIRX_REQUIRE_GPU=1, which makes a skip a failure.
# Exit status: 0 when every compile and every run that happened passed.
set -u
build=${1:-build}
dir=$(dirname "$0")
out=$build/demo
mkdir -p "$out"
status=0

# build_one FILE: cubin if NVRTC works, CUDA C++ if it does not (exit 3).
build_one() {
    name=$(basename "$1" .tirx)
    log=$out/$name.log
    "$build/tirx" build "$1" --target sm_90a --emit cubin --stats -o "$out/$name.cubin" 2>"$log"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "  $name: cubin, $(wc -c <"$out/$name.cubin") bytes ($out/$name.cubin)"
        sed 's/^/    /' "$log"
        return 0
    fi
    [ $rc -eq 3 ] || { sed 's/^/    /' "$log"; return 1; }
    why=$(sed -n '1s/^error\(\[[A-Z0-9]*\]\)\{0,1\}: //p' "$log")
    "$build/tirx" build "$1" --target sm_90a --emit cuda -o "$out/$name.cu" 2>"$log" ||
        { sed 's/^/    /' "$log"; return 1; }
    echo "  $name: CUDA C++, $(wc -l <"$out/$name.cu") lines ($out/$name.cu; no cubin: $why)"
}

echo "== compile (tirx build --target sm_90a)"
for f in "$dir"/*.tirx; do
    [ -e "$f" ] || continue
    build_one "$f" || { echo "  $(basename "$f"): FAILED"; status=1; }
done

echo "== run and check on the GPU (tirx_demo)"
"$build/examples/tirx_demo" >"$out/run.log" 2>&1
rc=$?
case $rc in
0) cat "$out/run.log" ;;
77) echo "  skipped: no GPU here ($(sed -n 's/^SKIPPED: //p' "$out/run.log"))" ;;
*) cat "$out/run.log"; echo "  FAILED (tirx_demo exit $rc)"; status=1 ;;
esac
exit $status
