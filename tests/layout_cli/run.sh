#!/bin/sh
# Golden tests of the tirx CLI. usage: run.sh TIRX FILE
#
# FILE holds cases; each starts with a line `$ tirx ARGS` (ARGS quoted as in
# a POSIX shell), followed by the exact standard output, then optionally a
# line `[exit N]` and the exact standard error. Without `[exit N]` the command
# must exit 0 and write nothing on standard error. Blank lines that end a
# case's output separate cases; after one, lines starting with '#' are
# comments until the next case. A FILE ending in .md is a
# document: only its ```console blocks hold cases. Commands run in FILE's
# directory. Every mismatch is shown as a diff; the test fails if there is one.
set -u
tirx=$1
file=$2
case $tirx in /*) ;; */*) tirx=$(pwd)/$tirx ;; esac
dir=$(cd "$(dirname "$file")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Split FILE into $work/N.cmd, N.out, N.err and N.rc (only with [exit N]).
awk -v work="$work" -v md="$(case $file in *.md) echo 1;; *) echo 0;; esac)" '
    function out(f, s) { if (f != "none") printf "%s\n", s >> (work "/" n "." f) }
    md && /^```console[ \t]*$/ { inblock = 1; next }
    md && /^```/ { inblock = 0; next }
    md && !inblock { next }
    /^\$ tirx( |$)/ { n++; part = "out"; blank = 0; sub(/^\$ tirx ?/, ""); out("cmd", $0);
                     printf "" > (work "/" n ".out"); printf "" > (work "/" n ".err"); next }
    !n { next }
    /^\[exit [0-9]+\]$/ { part = "err"; blank = 0; rc = $2; sub(/\]/, "", rc);
                          printf "%s\n", rc > (work "/" n ".rc"); next }
    /^$/ { blank++; next }     # kept only when more text of the same part follows
    blank && /^#/ { part = "none"; next }  # a comment after a blank line: between cases
    { while (blank > 0) { out(part, ""); blank-- } out(part, $0) }
' "$file"

failed=0
cases=0
for cmd in "$work"/*.cmd; do
    [ -e "$cmd" ] || break
    k=${cmd%.cmd}
    cases=$((cases + 1))
    args=$(cat "$cmd")
    (cd "$dir" && eval "set -- $args" && "$tirx" "$@") >"$k.got" 2>"$k.goterr"
    rc=$?
    want=0
    [ -e "$k.rc" ] && want=$(cat "$k.rc")
    if ! diff -u "$k.out" "$k.got" >"$k.diff" || ! diff -u "$k.err" "$k.goterr" >>"$k.diff" ||
       [ "$rc" != "$want" ]; then
        echo "FAIL: tirx $args (exit $rc, expected $want)"
        cat "$k.diff"
        failed=$((failed + 1))
    fi
done
if [ "$cases" -eq 0 ]; then
    echo "no cases in $file"
    exit 1
fi
echo "$cases cases, $failed failed"
[ "$failed" -eq 0 ]
