#!/bin/sh
# input_limit_test.sh TIRX FILE: inputs over the input size limit are refused.
# An endless input (/dev/zero) is refused at once, after reading the limit
# (64 MiB); a FILE over --max-input-size is refused by every command, in
# bounded time; a raised limit takes it; a malformed size is a usage error.
set -u
tirx=$1 file=$2
fails=0
fail() { echo "FAILED: $*"; fails=1; }
# expect STATUS TEXT ARGS...: tirx ARGS exits STATUS with TEXT on stderr.
expect() {
    want=$1 text=$2
    shift 2
    err=$(timeout 60 "$tirx" "$@" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" = "$want" ] || fail "'tirx $*' exits $rc, not $want: $err"
    case $err in *"$text"*) ;; *) fail "'tirx $*' says: $err" ;; esac
}
if [ -r /dev/zero ]; then
    expect 1 "larger than the input size limit of 67108864 bytes" check /dev/zero
    expect 1 "(--max-input-size raises it)" build --target=sm_90a - </dev/zero
fi
for cmd in print check opt; do
    expect 1 "larger than the input size limit of 100 bytes" "$cmd" --max-input-size=100 "$file"
done
expect 1 "larger than the input size limit of 1024 bytes" build --target sm_90a \
    --max-input-size 1K "$file"
expect 0 "" check --max-input-size=1M "$file"
expect 2 "--max-input-size takes a positive number" check --max-input-size=5X "$file"
expect 2 "--max-input-size takes a positive number" check --max-input-size=0 "$file"
exit $fails
