#!/bin/sh
# full_test.sh TIRX FILE: output that cannot be written is an error. Each
# command that prints to stdout, run with stdout on /dev/full, exits 1 and
# says it could not write, as does build -o into a missing directory.
# SKIPPED where there is no /dev/full.
set -u
tirx=$1 file=$2
[ -w /dev/full ] || { echo "SKIPPED: no /dev/full"; exit 0; }
fails=0
check() {
    err=$("$@" 2>&1 >/dev/full)
    rc=$?
    case $rc:$err in
    1:*"cannot write"*) ;;
    *) echo "FAILED: '$*' > /dev/full says: $err"; fails=1 ;;
    esac
}
check "$tirx" print "$file"
check "$tirx" opt "$file"
check "$tirx" build --target=sm_90a "$file"
check "$tirx" build --target=sm_90a --emit=host "$file"
check "$tirx" layout 'T.TileLayout(T.S[(2, 4):(4, 1)])' --shape 2,4
err=$("$tirx" build --target=sm_90a -o /nonexistent-dir/out.cu "$file" 2>&1)
rc=$?
case $rc:$err in
1:*"cannot write '/nonexistent-dir/out.cu'"*) ;;
*) echo "FAILED: build -o into a missing directory exits $rc, says: $err"; fails=1 ;;
esac
exit $fails
