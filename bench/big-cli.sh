#!/usr/bin/env bash
# Issue 19 (big inputs end to end): the CLI at N normal 3D points, as a user runs it —
#   1. `treeline generate normal -n N --dim 3 -o points.npy`
#   2. `treeline emst points.npy --format npy -o edges/ --timings` (edges written streaming: sources.npy, targets.npy,
#      weights.npy, views of the result's arrays)
#   3. bench/check-edges.mjs: n − 1 edges, every end < n, no cycle; the total weight against the CLI's (8 digits)
# Prints each step's wall time and peak RSS (VmHWM, GNU time's maximum resident set), and the GPU memory in use
# sampled by nvidia-smi every 100 ms during step 2 (peak and the level before; "n/a" without nvidia-smi). The files
# are removed at the end.
#   bash bench/big-cli.sh N [emst options...]       e.g. bash bench/big-cli.sh 100000 --backend cpu
# Environment: DIST (default dist: the built CLI, DIST/cli/main.js), BIG_CLI_DIR (default the OS temp folder).
# On the H100 host: bash .gpu/run.sh env DIST=dist-h100 bash bench/big-cli.sh 100000000
set -euo pipefail
N="${1:?usage: bash bench/big-cli.sh N [emst options...]}"
shift
DIST="${DIST:-dist}"
CLI=(node "$DIST/cli/main.js")
WORK="$(mktemp -d "${BIG_CLI_DIR:-${TMPDIR:-/tmp}}/treeline-big-cli.XXXXXX")"
SAMPLER=""
cleanup() {
  [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Runs a command, printing its wall time and peak RSS (GNU time's %M in KiB; else the last VmHWM sampled).
measure() {
  local what="$1"
  shift
  local t0 t1 rss
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%M" -o "$WORK/rss" "$@"
    rss=$(tail -1 "$WORK/rss")
  else
    "$@" &
    local pid=$! hwm=0 v
    while kill -0 "$pid" 2>/dev/null; do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$v" ] && hwm=$v
      sleep 0.2
    done
    wait "$pid"
    rss=$hwm
  fi
  t1=$(date +%s.%N)
  awk -v w="$what" -v a="$t0" -v b="$t1" -v r="$rss" \
    'BEGIN { printf "big-cli: %s: wall %.1f s, peak RSS %.2f GiB\n", w, b - a, r / 1048576 }'
}

echo "big-cli: N = $N normal 3D points, CLI $DIST/cli/main.js, files in $WORK, $(nproc) cores"
measure "generate" "${CLI[@]}" generate normal -n "$N" --dim 3 --seed 1 -o "$WORK/points.npy"
ls -l "$WORK/points.npy" | awk '{ printf "big-cli: points.npy %.2f GB\n", $5 / 1e9 }'

GPU_LOG="$WORK/gpu.csv"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$GPU_LOG" 2>/dev/null &
  SAMPLER=$!
  sleep 0.5
fi
measure "emst" "${CLI[@]}" emst "$WORK/points.npy" --format npy -o "$WORK/edges" --timings "$@" 2>&1 |
  tee "$WORK/emst.log" | grep -E "^emst:|^big-cli|io::read|emst::total|write" || true
if [ -n "$SAMPLER" ]; then
  kill "$SAMPLER" 2>/dev/null || true
  wait "$SAMPLER" 2>/dev/null || true
  SAMPLER=""
  awk 'NR == 1 { base = $1 } { if ($1 > peak) peak = $1 } END {
    printf "big-cli: GPU memory used (nvidia-smi, every 100 ms): peak %d MiB, %d MiB before the run\n", peak, base }' "$GPU_LOG"
else
  echo "big-cli: GPU memory: n/a (no nvidia-smi)"
fi
grep -q "^emst:" "$WORK/emst.log" || { echo "big-cli: emst FAILED:"; tail -20 "$WORK/emst.log"; exit 1; }
du -b "$WORK/edges"/*.npy | awk '{ s += $1 } END { printf "big-cli: edges %.2f GB\n", s / 1e9 }'
measure "check" node bench/check-edges.mjs "$DIST" "$WORK/edges" "$N" | tee "$WORK/check.log"
# The CLI's total weight (printed to 8 digits: 1e-6 relative) against the check's sum of the written weights.
cli=$(grep -o "total weight [0-9.e+-]*" "$WORK/emst.log" | head -1 | awk '{ print $3 }')
chk=$(grep -o "total weight [0-9.e+-]*" "$WORK/check.log" | head -1 | awk '{ print $3 }')
awk -v a="$cli" -v b="$chk" 'BEGIN { d = a - b; if (d < 0) d = -d; ok = d <= 1e-6 * (b < 0 ? -b : b) + 1e-30
  printf "big-cli: total weight: CLI %s, written edges %s: %s\n", a, b, ok ? "agree" : "DIFFER"; exit ok ? 0 : 1 }'
