#!/usr/bin/env bash
# Issue 17's figures in one run, each beside its baseline and the ratio:
#   - virtual lua / fair / basic at 1,000 clients (delay uniform:0.5ms..2ms, 20 s, no sampling):
#     operations/s against redis-benchmark -c 1 INCR (one serial client) and -P 16 (the ceiling),
#     on the same plain redis-server over a unix socket; for lua also against Redis running lua's
#     acquire script fed by redis-benchmark -c 8 -P 32 (what Redis itself does of that script: the most
#     the run could drive);
#   - the same lua run on the embedded server (semsim's default: Redis's clock virtual, the run and
#     the server on one core) against redis-benchmark -c 1 on the plain server;
#   - speed_x (simulated seconds per wall second) of virtual lua at 100 / 1,000 / 10,000 clients;
#   - semsim check cases/s with --jobs 1 and --jobs 2 (lua, 1000 cases, seed 1);
#   - the checker on 10 million events against a plain read of the file (checker_bench: the
#     fastest of five passes of each);
#   - memory per simulated client (peak RSS of a large run minus that of a small one);
#   - Redlock over 5 masters against 1 master and against lua (bench/redlock_bench.sh's rows).
# Usage, from the project root: bench/performance.sh [build/semsim]
# The machine is shared: figures move with its load, the ratios (same run) less so.
set -euo pipefail
semsim=$(readlink -f "${1:-build/semsim}")
build=$(dirname "$semsim")
work=$(mktemp -d)
trap 'kill "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; rm -rf "$work"' EXIT
redis-server --port 0 --unixsocket "$work/redis.sock" --save '' --appendonly no --dir "$work" \
  --daemonize no --loglevel warning >/dev/null 2>&1 &
redis_pid=$!
for _ in $(seq 100); do [ -S "$work/redis.sock" ] && break; sleep 0.05; done
url="unix://$work/redis.sock"

col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
# The requests/s that redis-benchmark -q printed last.
rps() { tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1; }
bench() { redis-benchmark -s "$work/redis.sock" -c 1 -n 200000 -t incr -q "$@" 2>/dev/null | rps; }
mean() { python3 -c "import sys; print((float(sys.argv[1]) + float(sys.argv[2])) / 2)" "$1" "$2"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}x')" "$1" "$2"; }
row() { printf '%-48s %12s   %-36s %8s\n' "$@"; }
# lua's acquire script (algorithms/lua.cpp) from 8 connections, 32 in flight on each (a single
# connection leaves Redis idle while it reads its replies): 50 grants, then the rejections that are
# most of a 1,000-client run's operations.
lua_acquire=$(python3 -c "import re,sys; print(re.search(r'kAcquireLua = R\"lua\((.*?)\)lua\"', open(sys.argv[1]).read(), re.S).group(1))" \
                "$(dirname "$(readlink -f "$0")")/../algorithms/lua.cpp")
script_ceiling() {
  local sha
  sha=$(redis-cli -s "$work/redis.sock" script load "$lua_acquire")
  redis-benchmark -s "$work/redis.sock" -c 8 -P 32 -n 400000 -r 1000000 -q \
    evalsha "$sha" 2 bench:holders bench:fence id:__rand_int__ 50 5000000 __rand_int__ 2>/dev/null | rps
  redis-cli -s "$work/redis.sock" unlink bench:holders bench:fence >/dev/null
}

row "measure" "semsim" "baseline" "ratio"
for variant in lua fair basic; do
  b1=$(bench); p16=$(bench -P 16)
  [ "$variant" = lua ] && ceiling1=$(script_ceiling)
  "$semsim" run --redis "$url" --variant "$variant" --mode virtual --clients 1000 --limit 50 \
    --delay uniform:0.5ms..2ms --duration 20s --sample-every 0 --seed 1 --no-charts --out "$work/v-$variant" >/dev/null 2>&1
  b2=$(bench); base=$(mean "$b1" "$b2")
  ops=$(col "$work/v-$variant/throughput.csv" operations_per_s)
  row "virtual $variant, 1000 clients: operations/s" "$ops" "redis-benchmark -c 1: ${base%.*}/s" "$(ratio "$ops" "$base")"
  row "  same run: commands/s, round trips/s" "$(col "$work/v-$variant/summary.csv" commands_per_s)" \
    "round trips/s: $(col "$work/v-$variant/throughput.csv" round_trips_per_s)" ""
  row "  against the pipelined ceiling" "$ops" "redis-benchmark -c 1 -P 16: ${p16%.*}/s" "$(ratio "$ops" "$p16")"
  if [ "$variant" = lua ]; then
    ceiling=$(mean "$ceiling1" "$(script_ceiling)")
    row "  against Redis running the script alone" "$ops" "EVALSHA acquire -c 8 -P 32: ${ceiling%.*}/s" "$(ratio "$ops" "$ceiling")"
  fi
  row "  speed_x" "$(col "$work/v-$variant/throughput.csv" speed_x)" "real time: 1" "$(col "$work/v-$variant/throughput.csv" speed_x)x"
done
b1=$(bench)
"$semsim" run --variant lua --mode virtual --clients 1000 --limit 50 --delay uniform:0.5ms..2ms --duration 20s \
  --sample-every 0 --seed 1 --no-charts --out "$work/v-embedded" >/dev/null 2>&1
b2=$(bench); base=$(mean "$b1" "$b2")
ops=$(col "$work/v-embedded/throughput.csv" operations_per_s)
row "virtual lua, 1000 clients, embedded server: ops/s" "$ops" "redis-benchmark -c 1: ${base%.*}/s" "$(ratio "$ops" "$base")"
row "  same run: round trips/s" "$(col "$work/v-embedded/throughput.csv" round_trips_per_s)" "" ""
row "  speed_x" "$(col "$work/v-embedded/throughput.csv" speed_x)" "real time: 1" "$(col "$work/v-embedded/throughput.csv" speed_x)x"
for clients in 100 1000 10000; do
  "$semsim" run --redis "$url" --variant lua --mode virtual --clients "$clients" --limit 50 \
    --delay uniform:0.5ms..2ms --duration 5s --sample-every 0 --seed 1 --no-charts --out "$work/s$clients" >/dev/null 2>&1
  speed=$(col "$work/s$clients/throughput.csv" speed_x)
  row "speed_x, virtual lua, $clients clients, 5 s" "$speed" "real time: 1" "${speed}x"
done

cases_per_s() {
  local start end
  start=$(date +%s.%N)
  "$semsim" check --variant lua --cases 1000 --seed 1 --jobs "$1" --out "$work/check$1" >/dev/null 2>&1
  end=$(date +%s.%N)
  python3 -c "import sys; print(f'{1000 / (float(sys.argv[2]) - float(sys.argv[1])):.1f}')" "$start" "$end"
}
c1=$(cases_per_s 1); c2=$(cases_per_s 2)
row "check lua, 1000 cases: cases/s, --jobs 2" "$c2" "--jobs 1: $c1 cases/s" "$(ratio "$c2" "$c1")"

if [ -x "$build/checker_bench" ]; then
  out=$("$build/checker_bench" 10000000 "$work/checker.csv" 2>/dev/null)
  read_s=$(echo "$out" | awk '/^read only/ {print $3}')
  check_s=$(echo "$out" | awk '/^read \+ check/ {print $4}')
  row "checker, 10 M events: read + check, wall s" "$check_s" "plain read: $read_s s" "$(ratio "$check_s" "$read_s")"
  read_cpu=$(echo "$out" | awk '/^read only/ {print $4}')
  check_cpu=$(echo "$out" | awk '/^read \+ check/ {print $5}')
  row "  cpu s" "$check_cpu" "plain read: $read_cpu s" "$(ratio "$check_cpu" "$read_cpu")"
fi

rss() { /usr/bin/time -f %M "$semsim" run --redis "$url" --variant basic --mode virtual --clients "$1" --limit 10 \
          --duration 100ms --think fixed:1s --no-charts --out "$work/m$1" 2>&1 >/dev/null | tail -1; }
small=$(rss 1000); large=$(rss 50000)
row "memory per simulated client (bytes)" "$(( (large - small) * 1024 / 49000 ))" \
  "RSS ${small} KB at 1000, ${large} KB at 50000" ""
"$(dirname "$(readlink -f "$0")")/redlock_bench.sh" "$semsim" | tail -n +2
