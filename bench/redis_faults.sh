#!/usr/bin/env bash
# What each Redis fault does to each variant, from the fault scenarios: operations whose outcome
# the fault made unknown (info), permits lost, over-admission and the safety verdict; then the
# latency lua-wait pays for its replica confirmation (same run, same seed).
#   bench/redis_faults.sh build
set -euo pipefail
build=${1:-build}
cd "$(dirname "$(readlink -f "$0")")/.."
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
printf '%-32s %-12s %8s %6s %6s %8s\n' scenario variant unknown lost over safety
for s in redis-restart-no-persistence redis-restart-aof-always failover-lost-grant failover-caught-up \
         disconnect-in-flight redis-pause eviction-ttl-key; do
  "$build/semsim" scenario --out "$out" "scenarios/$s.ini" >/dev/null 2>&1 || true
  for summary in "$out/$s"/*/summary.csv; do
    python3 - "$summary" "$s" <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
print(f"{sys.argv[2]:32} {r['variant']:12} {r['unknown']:>8} {r['lost_permits']:>6} {r['over_admission']:>6} {r['safety']:>8}")
PY
  done
done
echo
echo "granted-acquire latency, 20 clients, limit 3, delay 0.5-2 ms, 10 s, seed 5, one replica:"
for v in lua lua-wait; do
  "$build/semsim" run --variant "$v" --replicas 1 --clients 20 --limit 3 --delay uniform:0.5ms..2ms --duration 10s \
    --seed 5 --no-charts --out "$out/lat-$v" >/dev/null 2>&1
  python3 - "$out/lat-$v/history.csv" "$v" <<'PY'
import csv, sys
invoked, ok = {}, []
for r in csv.DictReader(open(sys.argv[1])):
    if r['op'] != 'acquire': continue
    if r['phase'] == 'invoke': invoked[r['client']] = int(r['true_us'])
    elif r['client'] in invoked:
        d = (int(r['true_us']) - invoked.pop(r['client'])) / 1000
        if r['phase'] == 'ok': ok.append(d)
ok.sort()
print(f"  {sys.argv[2]:9} {len(ok)} granted, p50 {ok[len(ok) // 2]:.3f} ms, p99 {ok[int(0.99 * (len(ok) - 1))]:.3f} ms")
PY
done
