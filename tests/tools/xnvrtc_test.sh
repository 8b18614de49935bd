#!/bin/sh
# xnvrtc_test.sh TIRX FILE: extra NVRTC options reach NVRTC from the CLI.
# `-Xnvrtc -lineinfo` and TIRX_NVRTC_EXTRA_OPTS (split as shell words) put
# line information (.loc) into the PTX of FILE, which has none without them;
# an option NVRTC does not know is a usage error (exit 2) naming it, with the
# code E0805. SKIPPED without NVRTC (exit 3).
set -u
tirx=$1 file=$2
export TIRX_CACHE_DIR="${TMPDIR:-/tmp}/tirx-xnvrtc-$$"
trap 'rm -rf "$TIRX_CACHE_DIR"' EXIT
unset TIRX_NVRTC_EXTRA_OPTS
locs() { grep -c '\.loc' || true; }
plain=$("$tirx" build --target=sm_90a --emit=ptx "$file")
rc=$?
[ $rc -eq 3 ] && { echo "SKIPPED: no NVRTC"; exit 0; }
[ $rc -eq 0 ] || { echo "FAILED: build without options (exit $rc)"; exit 1; }
[ "$(echo "$plain" | locs)" -eq 0 ] || { echo "FAILED: .loc without -lineinfo"; exit 1; }
n=$("$tirx" build --target=sm_90a --emit=ptx -Xnvrtc -lineinfo "$file" | locs)
[ "$n" -gt 0 ] || { echo "FAILED: -Xnvrtc -lineinfo gave no .loc"; exit 1; }
n=$(TIRX_NVRTC_EXTRA_OPTS="'-line'info" "$tirx" build --target=sm_90a --emit=ptx "$file" | locs)
[ "$n" -gt 0 ] || { echo "FAILED: TIRX_NVRTC_EXTRA_OPTS=-lineinfo gave no .loc"; exit 1; }
err=$("$tirx" build --target=sm_90a --emit=ptx -Xnvrtc --no-such-option "$file" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || { echo "FAILED: an unknown option exits $rc, not 2"; exit 1; }
case $err in
*"error[E0805]"*--no-such-option*) ;;
*) echo "FAILED: the error does not name the option: $err"; exit 1 ;;
esac
"$tirx" build --target=sm_90a -Xnvrtc 2>/dev/null
[ $? -eq 2 ] || { echo "FAILED: -Xnvrtc without a value is not a usage error"; exit 1; }
echo "ok: -Xnvrtc and TIRX_NVRTC_EXTRA_OPTS reach NVRTC"
