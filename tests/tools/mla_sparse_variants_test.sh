#!/bin/sh
# mla_sparse_variants_test.sh TIRX KERNEL: the gather variants of
# kernels/mla_sparse_fp8_sm90.tirx emit what they are for, and only when set:
# CVT_PAIRS the pair conversion, GATHER_AHEAD the L2 prefetch of the rows
# (as lines, never as bulk prefetches),
# CLUSTER_SPLIT (H_Q 128) a cluster of two, the copy into the peer's stage and
# the full barrier armed with its 36864 bytes (a no-op at H_Q 64). "plain"
# turns all three off; each other build turns one on; the default is all three.
set -u
tirx=$1 kernel=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
build() { # OUT DEFINES...
    out=$1
    shift
    "$tirx" build --target=sm_90a "$@" "$kernel" >"$dir/$out.cu" || { echo "FAILED: build $*"; exit 1; }
}
has() { # OUT TEXT
    grep -qF -- "$2" "$dir/$1.cu" || { echo "FAILED: $1 lacks '$2'"; exit 1; }
}
lacks() { # OUT TEXT
    ! grep -qF -- "$2" "$dir/$1.cu" || { echo "FAILED: $1 has '$2'"; exit 1; }
}
build plain -D H_Q=128 -D S_Q=2 -D CVT_PAIRS=False -D GATHER_AHEAD=False -D CLUSTER_SPLIT=False
build pairs -D H_Q=128 -D S_Q=2 -D CVT_PAIRS=True -D GATHER_AHEAD=False -D CLUSTER_SPLIT=False
build ahead -D H_Q=64 -D S_Q=2 -D CVT_PAIRS=False -D GATHER_AHEAD=True -D CLUSTER_SPLIT=False
build split -D H_Q=128 -D S_Q=2 -D CVT_PAIRS=False -D GATHER_AHEAD=False -D CLUSTER_SPLIT=True
build split64 -D H_Q=64 -D S_Q=2 -D CVT_PAIRS=False -D GATHER_AHEAD=False -D CLUSTER_SPLIT=True
build default -D H_Q=128 -D S_Q=2
for v in plain ahead split split64; do lacks $v "cvt.rn.f16x2.e4m3x2"; done
has pairs "cvt.rn.f16x2.e4m3x2"
has pairs "fma.rn.bf16x2"
for v in plain ahead split split64; do lacks $v "fma.rn.bf16x2"; done
for v in plain pairs split split64; do lacks $v "prefetch.global.L2 "; done
for v in ahead default; do
    has $v "prefetch.global.L2 [%0];"
    lacks $v "cp.async.bulk.prefetch.L2.global"
done
for v in plain pairs ahead split64; do
    lacks $v "__cluster_dims__"
    lacks $v "cp.async.bulk.shared::cluster.shared::cta"
done
has split "__cluster_dims__(2, 1, 1)"
has split "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
has split "mbarrier.arrive.shared::cluster.b64"
has split '"r"(36864u)'
has split "tx_cluster_sync();"
has default "cvt.rn.f16x2.e4m3x2"
has default "__cluster_dims__(2, 1, 1)"
echo "ok: each variant emits its instructions, the plain build none of them, the default all"
