#!/usr/bin/env bash
# Issues 20 and 22 on nvidia-h100-x4 (L5, session 10): the partitioned exact EMST of N normal 3D points on NATS by the
# method 'pairs' (TREELINE_PARTITIONED_METHOD=pairs) with W GPU workers, one per GPU (0 … W − 1), nats-server on
# loopback — one phase per device call (each ≤ ~550 s: BUDGET), the same file and the same k in every phase:
#   bash bench/nats-h100x4.sh 1 [N] [k]      1 worker on GPU 0 (the baseline)
#   bash bench/nats-h100x4.sh 2 [N] [k]      2 workers on GPUs 0–1
#   bash bench/nats-h100x4.sh 4 [N] [k]      4 workers on GPUs 0–3; XK=16 then also runs k = 16 on the same workers
#                                           (another partitioning must give the same tree: issue 22's check)
#   bash bench/nats-h100x4.sh "1 2 4" [N] [k]  in one call, one group of workers after the other (XK: the last)
# and, last, the single-process GPU EMST of the same file where N fits one GPU (N ≤ REF_MAX) and REF=1, with cmp.
#   BUDGET=480 REF=0 bash bench/nats-h100x4.sh "2 1"   issue 20's Must in one nvidia-h100-x2 call (session 12): 2 workers,
#                                           then 1 worker with the time left (a cut 1-worker run still bounds the
#                                           ratio: ≤ T2 / its timeout), then the ratio of the walls and of
#                                           distributed::total (the line "ratio")
# Defaults N = 200000000, k = 4 (session 11: 6 pair tasks of 10^8 points, 3 a worker with 2 workers, and 4 forests,
# against k = 8's 28 pairs of 5·10^7 — the pairs cost (k − 1)·n points of work; XK=8 adds k = 8 after it). Each phase
# prints per run: the wall time, the coordinator's phases (--timings: distributed::partition, ::upload, ::pairs.cross,
# ::pairs.forests, ::merge, ::kruskal, ::sort, the owners' largest pair:: and forest:: steps), the bytes through NATS
# (the coordinator's count, and the server's in/out from its monitoring port: the workers' partition reads
# included), per worker its tasks, their summed times and partition reads, its host memory peak (VmHWM), the
# coordinator's peak RSS (1 s samples), the peak GPU memory per GPU (nvidia-smi sampled every 0.5 s), then
# bench/nats-check.mjs (n − 1 edges, no cycle, canonical order, total weight) and md5 sums of the three edge files
# for the call's first result (equal across calls = the same tree), and cmp of each with every other result under D.
# Points and results stay under D (/tmp/l5x4) between calls of one machine start; a fresh machine generates again.
# Needs, in .gpu: run.sh + node.xz + node_modules.tar.xz (the --prod pack is enough) and h100-nats-layer.tgz
# (bash bench/nats-layer.sh: nats-server 2.9.10 + VK_LAYER_MESA_device_select and its libs); dist-h100 built from
# HEAD. Call from the repository root. Environment: WTHREADS (each worker's --threads: a number, or 'split' for the
# host's cores / W; default: the worker's own, up to 16), PIN=1 (worker i of W pinned by taskset: to the CPUs local
# to its GPU (sysfs local_cpulist) where they are not all CPUs, else to the i-th W-th of the physical cores with
# their hyperthread siblings (lscpu), so two workers never share a core; 1 worker: all CPUs) — the two for session 12's finding that two
# workers on one host each run their tasks 17–22 % (pairs) and 8–19 % (forests) slower than one alone,
# MD5=1 (md5 sums of every result, not only the first checked one),
# CHECK=0 (no nats-check/md5 of the first result: later calls of one machine start compare byte for byte with the
# earlier results under D anyway; the check took 44 s at 2·10^8), BUDGET (s, default 550), RESERVE (s kept after a
# run for its checks, default 40; a run is skipped with less than RESERVE + 30 left), D, PORT (4222; monitoring PORT +
# 4000),
# WARM_N (points of an untimed run before the groups, default 2·10^7; 0: none), REF, REF_MAX (default 403000000: the single-process EMST's largest 3D n on the H100 by capacity.ts since 9e67429's
# split rounds, not yet run there; 134217727 before; phase 1 prints `treeline info`'s line), XK, and for a local try on
# CPU workers BACKEND=cpu NODE=node T="node dist/cli/main.js". LOCAL_DIR: the coordinator's --nats-local-dir (the
# same-host folder for partitions and large results, default /dev/shm; `none`: everything through the object store).
set -uo pipefail
WS=${1:?workers: 1, 2 or 4, or a list such as "2 4"}
N=${2:-200000000}
K=${3:-4}
XK=${XK:-}
REF=${REF:-1}
REF_MAX=${REF_MAX:-403000000}
BUDGET=${BUDGET:-550}
RESERVE=${RESERVE:-40}
BACKEND=${BACKEND:-gpu}
D=${D:-/tmp/l5x4}
NODE=${NODE:-bash .gpu/run.sh node}
T=${T:-$NODE dist-h100/cli/main.js}
START=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - START))); }
mkdir -p "$D"
export TREELINE_COMMIT=$(cat .gpu/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "phase: $WS worker(s), n = $N, k = $K${XK:+, then k = $XK}, backend $BACKEND, commit $TREELINE_COMMIT"
if [ "$BACKEND" = gpu ]; then
  tar xzf .gpu/h100-nats-layer.tgz --skip-old-files -C / && ldconfig
  nvidia-smi -L
  GPUS=$(nvidia-smi -L | grep -c '^GPU')
  for W in $WS; do
    [ "$GPUS" -lt "$W" ] && echo "only $GPUS GPUs for $W workers: workers share GPUs (worker i on GPU i mod $GPUS)"
  done
  $T info 2>&1 | grep -A1 "largest n"
fi
PORT=${PORT:-4222}
scripts/nats-server.sh --port "$PORT" -- -m $((PORT + 4000)) > "$D/nats.url" 2> "$D/nats.log" & NS=$!
U=nats://127.0.0.1:$PORT
PTS=$D/normal3d-$N.npy
if [ ! -s "$PTS" ]; then
  t0=$(date +%s%N)
  $T generate normal -n "$N" -d 3 -o "$D/part-$N.npy" 2>&1 | tail -1 && mv "$D/part-$N.npy" "$PTS"
  echo "generate: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
  echo "points: $PTS (from an earlier call)"
fi
varz() { # the server's total bytes in and out (its monitoring endpoint)
  $NODE -e "fetch('http://127.0.0.1:$((PORT + 4000))/varz').then(r=>r.json()).then(v=>console.log(v.in_bytes+' '+v.out_bytes)).catch(()=>console.log('0 0'))"
}
pin_cpus() { # PIN=1: worker $1 of $2's CPU list (see the header), on GPU $3 (gpu backend) or none
  local i=$1 w=$2 gpu=${3:-} all list=''
  all=$(cat /sys/devices/system/cpu/online)
  if [ -n "$gpu" ]; then
    local bus
    bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$gpu" 2>/dev/null | tr 'A-F' 'a-f' | sed 's/^0000//')
    list=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null || true)
    [ "$list" = "$all" ] && list=''
  fi
  if [ -z "$list" ]; then
    # Physical cores in order, each with all its CPUs; worker i takes cores [i·C/w, (i + 1)·C/w).
    list=$(lscpu -p=CPU,CORE,SOCKET | grep -v '^#' | awk -F, -v i="$i" -v w="$w" '
      { key = $3 "-" $2; if (!(key in idx)) { idx[key] = n++ } cpus[idx[key]] = cpus[idx[key]] (cpus[idx[key]] == "" ? "" : ",") $1 }
      END { lo = int(i * n / w); hi = int((i + 1) * n / w); s = ""; for (c = lo; c < hi; c++) s = s (s == "" ? "" : ",") cpus[c]; print s }')
  fi
  echo "${list:-$all}"
}
stamp() { # each line with the wall clock in front (the workers' tasks against the run's start and end)
  while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done
}
start_workers() { # W workers (GPU i mod GPUS), until each says it is connected; the GPU memory sampler
  WPIDS=()
  rm -f "$D"/w[0-9].log
  local cores=$(nproc) extra=()
  case "${WTHREADS:-}" in
    '') ;;
    split) extra=(--threads $((cores / W > 0 ? cores / W : 1))) ;;
    *) extra=(--threads "$WTHREADS") ;;
  esac
  for ((i = 0; i < W; i++)); do
    local pin=()
    if [ "${PIN:-0}" = 1 ]; then
      pin=(taskset -c "$(pin_cpus "$i" "$W" "$([ "$BACKEND" = gpu ] && echo $((i % GPUS)))")")
    fi
    if [ "$BACKEND" = gpu ]; then
      "${pin[@]}" $T worker --nats $U --gpu $((i % GPUS)) --ack-wait 600 "${extra[@]}" 2> >(stamp > "$D/w$i.log") & WPIDS+=($!)
    else
      "${pin[@]}" $T worker --nats $U --backend cpu --ack-wait 600 "${extra[@]}" 2> >(stamp > "$D/w$i.log") & WPIDS+=($!)
    fi
    echo "worker $i: ${pin[*]:-unpinned} ${extra[*]:-(threads: its own default)}"
  done
  for ((s = 0; s < 60; s++)); do
    ready=0
    for ((i = 0; i < W; i++)); do grep -q "connected" "$D/w$i.log" 2>/dev/null && ready=$((ready + 1)); done
    [ "$ready" = "$W" ] && break
    sleep 1
  done
  head -2 "$D"/w[0-9].log
  if [ "$BACKEND" = gpu ]; then
    nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 500 > "$D/gpumem-$W.csv" 2>/dev/null &
    SMI=$!
  fi
}

pstat() { # pid label: user/system CPU seconds and minor faults of a live process (the node under .gpu/run.sh)
  local pid=$1 child
  child=$(pgrep -P "$pid" -f 'main.js' | head -1); [ -n "$child" ] && pid=$child
  awk -v l="$2" -v t="$(getconf CLK_TCK)" '{ printf "%s: user %.1f s, system %.1f s, minor faults %.1f M\n", l, $14 / t, $15 / t, $10 / 1e6 }' "/proc/$pid/stat" 2>/dev/null
}
cpustat() { # the host's user, system and idle CPU seconds so far, and its page faults (/proc/stat, /proc/vmstat)
  local t; t=$(getconf CLK_TCK)
  echo "$(awk -v t="$t" '$1 == "cpu" { printf "%.1f %.1f %.1f", ($2 + $3) / t, ($4 + $7 + $8) / t, $5 / t }' /proc/stat) $(awk '$1 == "pgfault" { print $2 }' /proc/vmstat)"
}

stop_workers() { # per worker: tasks by kind (count, summed ms, summed partition reads ms), host peak; then stop
  for ((i = 0; i < W; i++)); do
    for kind in pair forest; do
      grep -h "worker: $kind p.* done in" "$D/w$i.log" |
        awk -v w="$i" -v k="$kind" '{n++; t += $(NF-4); r += $NF} END {if (n) printf "worker %s: %d %s tasks, %.1f s, partitions read %.1f s\n", w, n, k, t/1000, r/1000}'
    done
    echo "worker $i: host peak $(grep VmHWM /proc/${WPIDS[$i]}/status 2>/dev/null | awk '{print $2/1e6 " GB"}')"
    # Its CPU time in user and kernel mode and its minor page faults over its life (the one run): kernel time is
    # where fresh pages go (session 15: the first forests of two workers ran 3–6 s slower than one worker's).
    pstat "${WPIDS[$i]}" "worker $i"
    # Its host threads a task, as it chose them (worker.host.ts: the workers on its host, counted at each task's start).
    grep -h "on this host" "$D/w$i.log" | sed "s/^[0-9.]* worker: /worker $i: /" | sort -u
    # The front (the run's start to this worker's first task) and the tail (its last result to the run's end).
    awk -v w="$i" -v a="${RUN0:-0}" -v b="${RUN1:-0}" '
      / started / && !s { s = $1 } / done in / { d = $1 }
      END { if (s && a > 0) printf "worker %s: first task at +%.1f s, last done at +%.1f s, run ended +%.1f s\n", w, s - a, d - a, b - a }' "$D/w$i.log"
    # Each task: its span against the run's start, its time and partition reads, then its steps (the worker's line).
    awk -v w="$i" -v a="${RUN0:-0}" '
      $6 == "started" { s[$5] = $1 }
      $6 == "done" { d[$5] = $1; t[$5] = $8; r[$5] = $NF }
      $6 == "steps" && ($5 in d) {
        line = $0; sub(/^.* steps /, "", line)
        printf "worker %s: %s %s +%.1f..+%.1f s, %s ms (read %s): %s\n", w, $3, $4, s[$5] - a, d[$5] - a, t[$5], r[$5], line
      }' "$D/w$i.log"
  done
  grep -h "failed for good\|for a retry:\|dropped\|rror:" "$D"/w[0-9].log | head -5
  # SIGTERM lets a worker finish its task in hand (a cut run leaves one computing): KILL after 15 s.
  kill -TERM "${WPIDS[@]}" 2>/dev/null
  ( sleep 15; kill -KILL "${WPIDS[@]}" 2>/dev/null ) & local killer=$!
  wait "${WPIDS[@]}" 2>/dev/null
  kill "$killer" 2>/dev/null
  if [ "$BACKEND" = gpu ]; then
    kill "$SMI" 2>/dev/null
    awk -F', ' '{ if ($2 > m[$1]) m[$1] = $2 } END { for (g in m) printf "GPU %s: peak %d MiB used\n", g, m[g] }' "$D/gpumem-$W.csv"
  fi
}

since() { # each line with its time (s) since $1 (an EPOCHREALTIME): the coordinator's phases on one clock
  # (bash arithmetic on microseconds, no process a line: the coordinator writes stderr to the pipe synchronously)
  local a=${1/./} l d
  while IFS= read -r l; do
    d=$(( ${EPOCHREALTIME/./} - a ))
    printf '+%d.%02d %s\n' $(( d / 1000000 )) $(( d % 1000000 / 10000 )) "$l"
  done
}

run() { # partitions: one timed `emst --nats` run with the workers above, then its checks
  local k=$1 id=w${W}k$1
  local budget=$(( $(left) - RESERVE ))
  if [ "$budget" -lt 30 ]; then echo "$id: skipped ($(left) s left of BUDGET)"; return; fi
  rm -rf "${D:?}/$id"
  read -r in0 out0 < <(varz)
  # The coordinator's resident memory, sampled every second (its largest sample, in KB).
  echo 0 > "$D/rss-$id"
  ( peak=0; while sleep 1; do
      r=$(ps -eo rss=,args= | awk '/main\.js emst/ && /--nats/ && !/awk/ { s += $1 } END { print s + 0 }')
      [ "$r" -gt "$peak" ] && peak=$r && echo "$peak" > "$D/rss-$id"
    done ) & local mon=$!
  read -r cu0 cs0 ci0 pf0 < <(cpustat)
  local t0=$(date +%s%N)
  RUN0=$EPOCHREALTIME
  TREELINE_PARTITIONED_METHOD=pairs timeout "$budget" $T emst "$PTS" --nats $U --partitions "$k" \
    --run-id "$id-$(date +%s)" --format npy -o "$D/$id/" --timings --verbose ${LOCAL_DIR:+--nats-local-dir "$LOCAL_DIR"} \
    2>&1 | since "$RUN0" > "$D/run-$id.log"
  local rc=${PIPESTATUS[0]}
  RUN1=$EPOCHREALTIME
  local wall=$(( ($(date +%s%N) - t0) / 1000000 ))
  read -r cu1 cs1 ci1 pf1 < <(cpustat)
  echo "$id: host CPU during the run: user $(awk "BEGIN { print $cu1 - $cu0 }") s, system $(awk "BEGIN { print $cs1 - $cs0 }") s, idle $(awk "BEGIN { print $ci1 - $ci0 }") s; page faults $(( (pf1 - pf0) / 1000000 )) M"
  kill "$mon" 2>/dev/null
  read -r in1 out1 < <(varz)
  grep -v '^\S* *$' "$D/run-$id.log" | tail -90
  echo "$id: exit $rc, wall $wall ms (timeout ${budget} s); NATS server bytes in $(( (in1 - in0) / 1000000 )) MB, out $(( (out1 - out0) / 1000000 )) MB; coordinator peak RSS $(awk '{ printf "%.1f GB", $1 / 1e6 }' "$D/rss-$id") (1 s samples)"
  # For the ratio line: the wall (or, cut, its timeout as a lower bound) and distributed::total.
  if [ "$rc" = 0 ]; then WALL[$W]=$wall; else WALL[$W]=">$((budget * 1000))"; fi
  TOTAL[$W]=$(awk '$2 == "distributed::total" { print $3 }' "$D/run-$id.log")
  [ "$rc" = 0 ] || return
  # The full check and md5 sums once per call (each reads every edge: ~10–20 s at 2·10^8); later results are compared
  # byte for byte with the earlier ones.
  if [ -z "${CHECKED:-}" ] && [ "${CHECK:-1}" = 1 ]; then
    $NODE bench/nats-check.mjs "$D/$id" "$N"
    (cd "$D/$id" && md5sum sources.npy targets.npy weights.npy | sed "s|^|$id |")
    CHECKED=$id
  elif [ "${MD5:-0}" = 1 ]; then
    # MD5=1: every result's md5 sums too (~4 s a result at 2·10^8), to compare across machine starts.
    (cd "$D/$id" && md5sum sources.npy targets.npy weights.npy | sed "s|^|$id |")
  fi
  for other in "$D"/*/; do
    other=$(basename "$other")
    [ "$other" = "$id" ] || [ ! -s "$D/$other/weights.npy" ] && continue
    local same=1
    for f in sources targets weights; do cmp -s "$D/$id/$f.npy" "$D/$other/$f.npy" || same=0; done
    [ "$same" = 1 ] && echo "$id = $other: edges identical" || echo "$id != $other: EDGES DIFFER"
  done
}

LAST=${WS##* }
declare -A WALL TOTAL
# A throw-away run first (WARM_N points, default 2·10^7; 0: none), with as many workers as the largest group: the
# first processes on a fresh machine are slow (clocks ramp; session 15: the first group's warm-up EMST took 1.3 s
# against 0.16 s, its partitioning 4.1 s against 3.2), and the group that ran first paid it alone.
WARM_N=${WARM_N:-20000000}
if [ "$WARM_N" -gt 0 ] && [ "$(left)" -gt 120 ]; then
  W=0; for w in $WS; do [ "$w" -gt "$W" ] && W=$w; done
  echo "== warm-up: $W worker(s), $WARM_N points (not timed) =="
  [ -s "$D/warm-$WARM_N.npy" ] || $T generate normal -n "$WARM_N" -d 3 -o "$D/warm-$WARM_N.npy" > /dev/null 2>&1
  start_workers
  t0=$(date +%s%N)
  TREELINE_PARTITIONED_METHOD=pairs timeout 120 $T emst "$D/warm-$WARM_N.npy" --nats $U --partitions "$K" \
    --run-id "warm-$(date +%s)" --format npy -o "$D/warm/" ${LOCAL_DIR:+--nats-local-dir "$LOCAL_DIR"} > "$D/run-warm.log" 2>&1
  echo "warm-up: exit $?, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  stop_workers > /dev/null 2>&1
  rm -rf "${D:?}/warm"
fi
for W in $WS; do
  echo "== $W worker(s) =="
  start_workers
  run "$K"
  [ -n "$XK" ] && [ "$W" = "$LAST" ] && run "$XK"
  stop_workers
done
# The single-process GPU EMST of the same file, last (after every group: it must not take their time), and cmp with
# each result of this call.
if [ "$REF" = 1 ] && [ "$N" -le "$REF_MAX" ] && [ ! -s "$D/ref/weights.npy" ] && [ "$(left)" -gt 60 ]; then
  t0=$(date +%s%N)
  timeout $(( $(left) - 30 )) $T emst "$PTS" --backend "$BACKEND" --format npy -o "$D/ref/" --timings 2>&1 | tail -4
  echo "single-process wall $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  for W in $WS; do
    # A group skipped for time (or cut) wrote no result: nothing to compare.
    [ -s "$D/w${W}k$K/weights.npy" ] || { echo "w${W}k$K: no result (skipped or cut)"; continue; }
    same=1
    for f in sources targets weights; do cmp -s "$D/ref/$f.npy" "$D/w${W}k$K/$f.npy" || same=0; done
    [ "$same" = 1 ] && echo "w${W}k$K = single process: edges identical" || echo "w${W}k$K != single process: EDGES DIFFER"
  done
fi
# Issue 20's Must: the 2-worker time against the 1-worker time (≤ 0.6; Goal ≤ 0.55).
if [ -n "${WALL[1]:-}" ] && [[ "${WALL[2]:-}" =~ ^[0-9]+$ ]]; then
  $NODE -e '
    const [w1, w2, t1, t2] = process.argv.slice(1);
    const cut = w1.startsWith(">");
    const r = (a, b) => (Number(a.replace(">", "")) ? (Number(b) / Number(a.replace(">", ""))).toFixed(3) : "?");
    console.log(`ratio 2/1 workers (n = ${process.argv[5]}, k = ${process.argv[6]}): wall ${w2} / ${w1} ms = ${cut ? "< " : ""}${r(w1, w2)}` +
      (t1 && t2 ? `; distributed::total ${t2} / ${t1} ms = ${r(t1, t2)}` : ""));
  ' "${WALL[1]}" "${WALL[2]}" "${TOTAL[1]:-}" "${TOTAL[2]:-}" "$N" "$K"
fi
kill -TERM "$NS"
wait "$NS" 2>/dev/null
echo "phase done in $(( $(date +%s) - START )) s"
