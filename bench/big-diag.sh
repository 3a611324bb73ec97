#!/usr/bin/env bash
# Issue 19: where does the EMST of 6·10^8 3D points stall? (session 12, commit 19d9a79 on the H100: `bench
# emst-normal3d --n 600000000` printed "uploaded, pipelines made at 22.5 s" and nothing more in 240 s; `treeline emst`
# of the same size likewise. 4·10^8 ran exactly in 3.5 s at fbeb616, before this session's layout and part changes.)
# Answered in session 13: the bench's own points (the threaded generation left most of them at the origin beyond
# 4 GiB: src/host/wire.ts, bench/RESULTS.md); with that fixed, 4·10^8 and 6·10^8 run. Kept for the next stall: with
# TREELINE_GPU_STEPLOG=1 (on here, STEPLOG=0 off; step 1 runs without it) each step's log names the last kernel the
# GPU finished.
# Each step under its own timeout, cheapest and most telling first, so that one call on the H100 says which of
# these it is: the new layout at the old size (1), the 4-byte arrays' two-part path at a size that otherwise runs
# (2: a 1 GiB binding limit puts 3·10^8 points' 4-byte arrays in two parts), the first n past 2^29 (3: indices and
# fills past 2^31 / 2^32 bytes), then 6·10^8 itself with the spatial-halves check (4).
# Usage (repository root, H100): T="bash .gpu/run.sh node dist-h100/cli/main.js" bash bench/big-diag.sh
# Sizes: N1 N2 N3 N4 (defaults 4e8, 3e8, 536870913, 6e8); LIM seconds a step (default 150; step 4: 2·LIM).
set -u
T=${T:-node dist/cli/main.js}
N1=${N1:-400000000}
N2=${N2:-300000000}
N3=${N3:-536870913}
N4=${N4:-600000000}
LIM=${LIM:-150}
step() { # name, seconds, then environment assignments and the command
  local name=$1 lim=$2 s rc
  shift 2
  s=$(date +%s)
  echo "== $name: $*"
  timeout "$lim" env TREELINE_GPU_STEPLOG=${STEPLOG:-1} "$@" 2>&1 | grep -vE "phases|per repetition|^\s*$"
  rc=${PIPESTATUS[0]}
  echo "== $name: rc $rc in $(($(date +%s) - s)) s$([ "$rc" = 124 ] && echo ' (timed out)')"
}
step "1 new layout, n = $N1" "$LIM" TREELINE_GPU_STEPLOG=0 TREELINE_BENCH_HALVES=0 $T bench emst-normal3d --n "$N1" --reps 1 --warmup 1
step "2 two-part 4-byte arrays (1 GiB bindings), n = $N2" "$LIM" TREELINE_MAX_BINDING_BYTES=1073741824 \
  TREELINE_BENCH_HALVES=0 $T bench emst-normal3d --n "$N2" --reps 1 --warmup 1
step "3 past 2^29, n = $N3" "$LIM" TREELINE_BENCH_HALVES=0 $T bench emst-normal3d --n "$N3" --reps 1 --warmup 1
step "4 the headline, n = $N4, halves checked" "$((2 * LIM))" $T bench emst-normal3d --n "$N4" --reps 1 --warmup 1
