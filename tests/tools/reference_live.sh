#!/usr/bin/env bash
# The live differential check against the reference compiler (ctest
# reference.live, run in tests/):
#
#   reference_live.sh ROUNDTRIP VENV_DIR OUT_DIR
#
# 1. Finds a Python with the pinned reference: $TIRX_REFERENCE_PYTHON if set,
#    else VENV_DIR, created and filled from reference/requirements.txt (and
#    reused while that file is unchanged).
# 2. Runs reference/oracle.py OUT_DIR: the reference prints every corpus
#    function into OUT_DIR/NAME.tirx.
# 3. Runs ROUNDTRIP --expect-same-as-input on each printed file, and plain
#    ROUNDTRIP on the deviations: the names in reference/DEVIATIONS.txt and
#    those the reference itself cannot round-trip (OUT_DIR/NONIDEMPOTENT.txt).
# Exits 77 (skipped) with the reason when the reference cannot be installed
# or imported; 1 when a check fails.
set -uo pipefail

if [ $# -ne 3 ]; then
    echo "usage: reference_live.sh ROUNDTRIP VENV_DIR OUT_DIR" >&2
    exit 2
fi
roundtrip=$1 venv=$2 out=$3
requirements=reference/requirements.txt

skip() {
    echo "SKIPPED: $*" >&2
    exit 77
}

# Prints the path of a Python that has the reference installed.
reference_python() {
    if [ -n "${TIRX_REFERENCE_PYTHON:-}" ]; then
        echo "$TIRX_REFERENCE_PYTHON"
        return
    fi
    [ -f "$requirements" ] || skip "no tests/$requirements"
    local stamp=$venv/requirements.txt
    if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
        echo "$venv/bin/python"
        return
    fi
    rm -rf "$venv"
    local log=$venv.log
    echo "reference_live: creating $venv" >&2
    python3 -m venv "$venv" >"$log" 2>&1 ||
        skip "python3 -m venv failed: $(tail -n 3 "$log" | tr '\n' ' ')"
    echo "reference_live: pip install -r tests/$requirements" >&2
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
        -r "$requirements" >>"$log" 2>&1 ||
        skip "pip install -r tests/$requirements failed: $(tail -n 3 "$log" | tr '\n' ' ')"
    cp "$requirements" "$stamp"
    echo "$venv/bin/python"
}

# The deviation names, one per line: first word of each non-comment line.
deviation_names() {
    local f
    for f in reference/DEVIATIONS.txt "$out/NONIDEMPOTENT.txt"; do
        [ -f "$f" ] && grep -oE '^[A-Za-z0-9_]+' "$f"
    done
    return 0
}

python=$(reference_python) || exit $?
rm -rf "$out"
mkdir -p "$out"
"$python" reference/oracle.py "$out"
status=$?
[ $status -eq 77 ] && skip "the reference compiler cannot be imported by $python (see above)"
if [ $status -ne 0 ]; then
    echo "FAIL: reference/oracle.py exited with status $status"
    exit 1
fi

deviations=$(deviation_names | sort -u)
# Texts the reference itself rejects on reparse; tirx must reject them too (exit status 1).
rejected=$(grep -oE '^[A-Za-z0-9_]+' reference/REJECTED.txt 2>/dev/null | sort -u)
passed=0 ndeviations=0 failed=()
for f in "$out"/*.tirx; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .tirx)
    if grep -qxF "$name" <<<"$rejected"; then
        "$roundtrip" "$f" >/dev/null 2>&1
        status=$?
        if [ $status -eq 1 ]; then
            passed=$((passed + 1))
        else
            echo "FAIL $f: the reference rejects it, tirx exited with $status"
            failed+=("$name")
        fi
        continue
    fi
    mode=--expect-same-as-input
    if grep -qxF "$name" <<<"$deviations"; then
        mode=
        ndeviations=$((ndeviations + 1))
    fi
    # One process per file, so that a crash on one does not hide the others.
    "$roundtrip" $mode "$f" >/dev/null
    status=$?
    if [ $status -eq 0 ]; then
        passed=$((passed + 1))
    else
        [ $status -gt 128 ] && echo "FAIL $f: roundtrip killed by signal $((status - 128))"
        failed+=("$name")
    fi
done
total=$((passed + ${#failed[@]}))
if [ $total -eq 0 ]; then
    echo "FAIL: reference/oracle.py printed no files"
    exit 1
fi
echo "reference_live: $passed of $total printed functions pass ($ndeviations deviations checked by round trip only)"
[ ${#failed[@]} -eq 0 ] || echo "reference_live: failing: ${failed[*]}"

# The committed oracle files should be what the pinned reference prints now.
stale=0
for f in "$out"/*.tirx; do
    [ -e "$f" ] || continue
    cmp -s "$f" "reference/expected/$(basename "$f")" || stale=$((stale + 1))
done
[ $stale -eq 0 ] ||
    echo "note: $stale printed files are missing from or differ from tests/reference/expected/"
[ ${#failed[@]} -eq 0 ]
