#!/bin/sh
# docs_build.sh TIRX PAGE.md: every ```tirx block of a docs page builds. Each
# block (```tirx fragment blocks are exempt: they show syntax or printing, not
# a kernel) is lowered by `tirx build` for the first of sm_90a, sm_100a and
# sm_80 that takes it, then compiled to a cubin with NVRTC for that target
# (ptxas validates it). Without NVRTC (exit 3) the test reports SKIPPED after
# the lowering. Failures name the block by its line in the page.
set -u
tirx=$1 page=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# Each ```tirx block as $dir/LINE.tirx (LINE: its first line in the page).
awk -v out="$dir" '
/^```tirx[ \t]*$/ { inb = 1; f = sprintf("%s/%d.tirx", out, NR + 1); printf "" > f; next }
inb && /^```/ { inb = 0; close(f); next }
inb { print > f }
' "$page"
fails=0 skipped=0 built=0
for f in "$dir"/*.tirx; do
    [ -e "$f" ] || continue
    line=$(basename "$f" .tirx)
    target=
    for arch in sm_90a sm_100a sm_80; do
        if "$tirx" build --target="$arch" "$f" >/dev/null 2>"$dir/err-$arch"; then
            target=$arch
            break
        fi
    done
    if [ -z "$target" ]; then
        echo "FAILED: $page:$line: the block does not build for sm_90a, sm_100a or sm_80:"
        sed "s|^$f|$page block at $line|" "$dir/err-sm_90a"
        fails=1
        continue
    fi
    "$tirx" build --target="$target" --emit=cubin -o "$dir/out.cubin" "$f" 2>"$dir/err"
    case $? in
    0) built=$((built + 1)) ;;
    3) skipped=1 ;;
    *) echo "FAILED: $page:$line: NVRTC rejects the CUDA for $target:"; cat "$dir/err"; fails=1 ;;
    esac
done
echo "$page: $built blocks built to a cubin"
[ $fails -eq 0 ] && [ $skipped -eq 1 ] && echo "SKIPPED: no NVRTC (the blocks were lowered)"
exit $fails
