#!/usr/bin/env bash
# Redlock over 5 masters in virtual time, beside its baseline in one run: simulated seconds per
# wall second (speed_x) of virtual `redlock` over 5 embedded masters, 100 clients, against the
# same workload of `redlock` over 1 master and of `lua` on one (semsim's default embedded server).
# Each master is a redis-server of its own: a round of votes is 5 round trips, one per master.
# Usage, from the project root: bench/redlock_bench.sh [build/semsim]   (figures move with load)
set -euo pipefail
semsim=$(readlink -f "${1:-build/semsim}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}x')" "$1" "$2"; }
row() { printf '%-48s %12s   %-36s %8s\n' "$@"; }  # as bench/performance.sh's
run() {  # name, variant, masters
  "$semsim" run --variant "$2" --masters "$3" --mode virtual --clients 100 --limit 1 --timeout 1s \
    --hold uniform:5ms..20ms --think uniform:5ms..50ms --delay uniform:0.5ms..2ms --duration 20s \
    --sample-every 0 --seed 1 --no-charts --out "$work/$1" >/dev/null 2>&1
}
run redlock-5 redlock 5; run redlock-1 redlock 1; run lua-1 lua 1
speed=$(col "$work/redlock-5/throughput.csv" speed_x)
row "measure" "semsim" "baseline" "ratio"
row "speed_x, virtual redlock, 5 masters, 100 clients" "$speed" "redlock, 1 master: $(col "$work/redlock-1/throughput.csv" speed_x)" \
  "$(ratio "$speed" "$(col "$work/redlock-1/throughput.csv" speed_x)")"
row "" "" "lua, 1 master: $(col "$work/lua-1/throughput.csv" speed_x)" \
  "$(ratio "$speed" "$(col "$work/lua-1/throughput.csv" speed_x)")"
row "  same run: round trips/s" "$(col "$work/redlock-5/throughput.csv" round_trips_per_s)" \
  "redlock, 1 master: $(col "$work/redlock-1/throughput.csv" round_trips_per_s)" ""
row "  same run: granted, acquires" "$(col "$work/redlock-5/summary.csv" granted)" \
  "acquires: $(col "$work/redlock-5/summary.csv" acquires)" ""
