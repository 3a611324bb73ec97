#!/usr/bin/env bash
# issue 20 on nvidia-h100-x2 (K6, session 9): the partitioned exact EMST of 2·10^7 normal 3D points on NATS by the
# opt-in method 'pairs' (TREELINE_PARTITIONED_METHOD=pairs; the default is still 'rounds') with one GPU worker, then
# two (one per GPU), the single-process GPU EMST for reference, and cmp of the edge files.
# Needs, in .gpu: run.sh + node.xz + node_modules.tar.xz (the --prod pack is enough) and h100-nats-layer.tgz
# (bash bench/nats-layer.sh: nats-server 2.9.10 + VK_LAYER_MESA_device_select and its libs); dist-h100 built from
# HEAD. Call from the repository root:   bash bench/nats-h100x2.sh (or its copy .gpu/h100-nats2.sh) [n] [partitions, e.g. "8" or "8 16"]
# Environment: AB="pairs-kruskal rounds" (any of TREELINE_PARTITIONED_METHOD's other values) also runs those methods
# at the first partition count, with 1 worker and with 2, for A/B in the same machine start (rounds: +~200 s at
# 2·10^7). On a one-GPU machine both workers share GPU 0 (said so in the log).
set -uo pipefail
N=${1:-20000000}
KS=${2:-8}
export TREELINE_COMMIT=$(cat .gpu/commit 2>/dev/null || echo unknown)
T="bash .gpu/run.sh node dist-h100/cli/main.js"
tar xzf .gpu/h100-nats-layer.tgz --skip-old-files -C / && ldconfig
nvidia-smi -L
GPUS=$(nvidia-smi -L | grep -c '^GPU')
G1=1; [ "$GPUS" -lt 2 ] && { G1=0; echo "one GPU: both workers on GPU 0"; }
ls /usr/share/vulkan/implicit_layer.d/
scripts/nats-server.sh --port 4222 > /tmp/nats.url 2> /tmp/nats.log & NS=$!
sleep 2; cat /tmp/nats.url
U=nats://127.0.0.1:4222
$T generate normal -n $N -d 3 -o /tmp/pts.npy 2>&1 | tail -1
$T worker --nats $U --gpu 0 --ack-wait 600 2> /tmp/w0.log & W0=$!
sleep 8; head -3 /tmp/w0.log
run() { # run id, partitions, extra env: one timed emst --nats run, its last lines and its wall time
  local id=$1; local K=$2; shift 2
  local t0=$(date +%s%N)
  env "$@" timeout 280 $T emst /tmp/pts.npy --nats $U --partitions $K --run-id $id --format npy -o /tmp/$id/ --timings 2>&1 | tail -22
  echo "$id wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}
K1=${KS%% *}
IDS=""
runs() { # worker count: method pairs at every K, then the AB methods at the first K
  for K in $KS; do run p${1}k$K $K TREELINE_PARTITIONED_METHOD=pairs; IDS="$IDS p${1}k$K"; done
  for M in ${AB:-}; do run $M${1}k$K1 $K1 TREELINE_PARTITIONED_METHOD=$M; IDS="$IDS $M${1}k$K1"; done
}
runs 1                                                     # 1 worker on GPU 0
$T worker --nats $U --gpu $G1 --ack-wait 600 2> /tmp/w1.log & W1=$!
sleep 8; head -3 /tmp/w1.log
nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv   # the two worker pids on two bus ids
runs 2                                                     # 2 workers, GPU 0 + GPU 1
t0=$(date +%s%N)
timeout 150 $T emst /tmp/pts.npy --backend gpu --format npy -o /tmp/g0/ --timings 2>&1 | tail -3
echo "single wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
for f in sources targets weights; do
  for id in $IDS; do
    cmp /tmp/g0/$f.npy /tmp/$id/$f.npy && echo "$f $id: equal"
  done
done
grep -c "done in" /tmp/w0.log /tmp/w1.log            # both workers took tasks
for kind in pair forest; do
  grep -h "$kind p.* done in" /tmp/w0.log /tmp/w1.log | awk '{print $(NF-1)}' | sort -n | tr '\n' ' '; echo " ms per $kind task"
done
kill -TERM $W0 $W1; wait $W0 $W1; echo "workers exit $?"
tail -3 /tmp/w0.log /tmp/w1.log
kill -TERM $NS; wait $NS; echo done
