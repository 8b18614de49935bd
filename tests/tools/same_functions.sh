#!/bin/sh
# same_functions.sh A B NAME...: each top-level function NAME (from its
# decorator to the next top-level line, blank lines dropped) is the
# same text in the .tirx files A and B. Kernels that share an interface
# copy the functions they share (a .tirx file cannot include another);
# this keeps the copies from drifting apart.
set -u
a=$1 b=$2
shift 2
body() {
    awk -v name="$2" '
        /^@/ { dec = $0; on = 0; next }
        /^def / { on = index($0, "def " name "(") == 1; if (on) print dec; dec = "" }
        /^[^ \t@#]/ && !/^def / { on = 0 }
        on && NF { print }
    ' "$1"
}
status=0
for name in "$@"; do
    x=$(body "$a" "$name") y=$(body "$b" "$name")
    if [ -z "$x" ] || [ -z "$y" ]; then
        echo "FAILED: $name is missing from $a or $b"
        status=1
    elif [ "$x" != "$y" ]; then
        echo "FAILED: $name differs between $a and $b"
        status=1
    else
        echo "$name: the same in both"
    fi
done
exit $status
