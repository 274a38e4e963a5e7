#!/usr/bin/env bash
# Warp against paced: the same plan of a real library's reference driver, run in real time and in
# virtual time, side by side: wall time, the speed-up (goal: at least 10x on a 2-core machine),
# simulated seconds per CPU second (semsim and the drivers), and whether the two verdicts agree.
# The plan: 4 clients, 10 s leases, 120 s with holds of 1-5 s refreshed every 3 s, and client 1
# paused 12 s (past its lease) at 30 s while it holds.
#   bench/warp_bench.sh build     (npm's redis-semaphore under build/libraries/node, as ./bootstrap test installs it)
set -euo pipefail
build=$(readlink -f "${1:-build}")
cd "$(dirname "$(readlink -f "$0")")/.."
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
export NODE_PATH=${NODE_PATH:-$build/libraries/node/node_modules}
printf 'at,client,action,arg\n29s,1,acquire,20s\n30s,1,pause,12s\n' >"$out/pause.csv"
plan=(--clients 4 --timeout 10s --hold uniform:1s..5s --refresh-every 3s --think uniform:100ms..2s --duration 120s
      --seed 7 --actions-file "$out/pause.csv" --no-charts)
printf '%-22s %-7s %8s %8s %8s %10s %6s\n' driver mode wall_s cpu_s speedup sim_s/cpu_s over
for spec in "redis-semaphore|node examples/drivers/redis-semaphore-driver.js|2" \
            "redis-py Lock|/usr/bin/python3 examples/drivers/redis-py-lock-driver.py|1"; do
  IFS='|' read -r name command limit <<<"$spec"
  paced=0
  for mode in paced virtual; do
    /usr/bin/time -f '%e %U %S' -o "$out/time" "$build/semsim" run --mode "$mode" --variant "driver:$command" \
      --limit "$limit" "${plan[@]}" --out "$out/$mode" >"$out/$mode.log" 2>&1 || { echo "$name $mode failed: $(tail -1 "$out/$mode.log")"; exit 1; }
    read -r wall user sys <"$out/time"
    [ "$mode" = paced ] && paced=$wall
    over=$(python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1]['over_admission'])" "$out/$mode/summary.csv")
    python3 -c "
import sys
name, mode, wall, cpu, paced, over = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) + float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
print(f'{name:22} {mode:7} {wall:8.1f} {cpu:8.1f} {paced / wall:7.1f}x {120 / cpu:10.1f} {over:>6}')" \
      "$name" "$mode" "$wall" "$user" "$sys" "$paced" "$over"
  done
done
