#!/bin/sh
# The main job on examples/: print each example's canonical form and check it.
set -e
TIRX=${1:-build/tirx}
dir=$(dirname "$0")
status=0
for f in "$dir"/*.tirx; do
    [ -e "$f" ] || continue
    echo "== $f"
    if "$TIRX" print "$f" && "$TIRX" check "$f"; then
        echo "-- verified: ok"
    else
        echo "-- FAILED"
        status=1
    fi
done
exit $status
