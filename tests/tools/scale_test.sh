#!/bin/sh
# scale_test.sh TIRX: the front end's cost is linear in the input. Generates
# 20,000 small functions (about 1.8 MB) and one function of 40,000 names
# (about 1 MB) and checks each with `tirx check`, which must succeed within
# LIMIT seconds (generous, so a loaded machine does not flake; both take well
# under a second in a release build) and with a peak resident memory under
# 42 times the input's size, the 50x with a margin: the functions
# peak near 37x (the tokens and syntax tree of the parse; a function's tree is
# freed once it is elaborated) and the names near 38x (one function, its tree
# whole beside its IR). The peak is read with python3 (getrusage); without it
# only the time is checked. Prints the times and peaks.
set -u
tirx=$1
limit=${SCALE_LIMIT_SECONDS:-5}
ratio=42
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
awk 'BEGIN {
    for (i = 0; i < 20000; i++)
        printf "@T.prim_func\ndef f%d(A: T.Buffer((16,), \"float32\")):\n    A[%d] = A[0] + T.float32(1.5)\n\n", i, i % 16
}' >"$dir/funcs.tirx"
awk 'BEGIN {
    print "@T.prim_func\ndef g(A: T.Buffer((16,), \"float32\")):"
    for (i = 0; i < 40000; i++)
        printf "    v%d: T.let = A[%d]\n", i, i % 16
    print "    A[0] = v39999"
}' >"$dir/names.tirx"
fails=0
# The peak resident set of `tirx check FILE` in KiB (empty without python3).
peak_kib() {
    command -v python3 >/dev/null 2>&1 || return 0
    python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$tirx" check "$1"
}
for f in funcs names; do
    bytes=$(wc -c <"$dir/$f.tirx")
    start=$(date +%s%N)
    "$tirx" check "$dir/$f.tirx" || { echo "FAILED: tirx check $f.tirx"; fails=1; }
    ms=$((($(date +%s%N) - start) / 1000000))
    echo "$f.tirx: $bytes bytes checked in $ms ms"
    [ "$ms" -lt $((limit * 1000)) ] || { echo "FAILED: $f.tirx took over $limit s"; fails=1; }
    kib=$(peak_kib "$dir/$f.tirx")
    [ -n "$kib" ] || { echo "$f.tirx: no python3, peak memory not checked"; continue; }
    echo "$f.tirx: peak memory $kib KiB ($((kib * 1024 / bytes))x the input)"
    [ $((kib * 1024)) -lt $((ratio * bytes)) ] ||
        { echo "FAILED: $f.tirx peaked over ${ratio}x the input"; fails=1; }
done
exit $fails
