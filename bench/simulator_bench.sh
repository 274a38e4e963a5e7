#!/usr/bin/env bash
# Simulator throughput and memory, each beside its baseline, in one run:
#   - Redis commands per second that semsim drives, virtual and paced mode, beside
#     redis-benchmark on the same server with the same number of connections (semsim uses one
#     connection and, in virtual mode, strictly serial order: -c 1, no pipelining);
#   - memory per simulated client (peak RSS of a large run minus that of a small one).
# Usage: bench/simulator_bench.sh [build/semsim]     (figures vary with the machine's load)
# semsim counts every command it sends, MULTI and EXEC included; a transaction is one round trip.
set -euo pipefail
semsim=$(readlink -f "${1:-build/semsim}")
work=$(mktemp -d)
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
redis-server --port 0 --unixsocket "$work/redis.sock" --save '' --appendonly no --dir "$work" \
  --daemonize no --loglevel warning >/dev/null 2>&1 &
redis_pid=$!
for _ in $(seq 100); do [ -S "$work/redis.sock" ] && break; sleep 0.05; done
url="unix://$work/redis.sock"

col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
baseline() { redis-benchmark -s "$work/redis.sock" -c 1 -n "$1" -t "$2" -q | tr -d '\r' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1; }

printf '%-44s %14s   %s\n' "measure" "semsim" "baseline"
for variant in basic fair lua; do
  "$semsim" run --redis "$url" --variant "$variant" --mode virtual --clients 100 --limit 10 --duration 10s \
    --no-charts --out "$work/v-$variant" >/dev/null 2>&1
  printf '%-44s %14s   %s\n' "virtual, $variant, 100 clients: commands/s" "$(col "$work/v-$variant/summary.csv" commands_per_s)" \
    "redis-benchmark -c 1 INCR: $(baseline 200000 incr) req/s"
done
"$semsim" run --redis "$url" --variant lua --mode paced --clients 2000 --limit 50 --duration 5s \
  --think exp:20ms --no-charts --out "$work/paced" >/dev/null 2>&1
printf '%-44s %14s   %s\n' "paced, lua, 2000 clients: commands/s" "$(col "$work/paced/summary.csv" commands_per_s)" \
  "redis-benchmark -c 1 INCR: $(baseline 200000 incr) req/s"

rss() { /usr/bin/time -f %M "$semsim" run --redis "$url" --variant basic --mode virtual --clients "$1" --limit 10 \
          --duration 100ms --think fixed:1s --no-charts --out "$work/m$1" 2>&1 >/dev/null | tail -1; }
small=$(rss 1000); large=$(rss 50000)
printf '%-44s %14s   %s\n' "memory per simulated client (bytes)" "$(( (large - small) * 1024 / 49000 ))" \
  "peak RSS $small KB at 1000 clients, $large KB at 50000"
