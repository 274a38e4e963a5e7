#!/usr/bin/env bash
# The clock library's cost, beside its baseline in one run: redis-benchmark (-c 1, unix socket)
# on two identical redis-servers, one plain and one with libsemsim_clock.so preloaded and its
# control page in virtual mode (every command then reads Redis's clock from the page), for
# commands that read the clock (SET with PX, INCR, a script calling TIME).
# Usage: bench/redis_clock_bench.sh [build]     (figures vary with the machine's load)
set -euo pipefail
build=$(readlink -f "${1:-build}")
lib=$build/libsemsim_clock.so
[ -f "$lib" ] || { echo "no $lib: build first" >&2; exit 2; }
work=$(mktemp -d); pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
# A control page in virtual mode (magic, seq 0, flags 1, 2026-01-01T00:00:00Z).
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<QIIq',0x53454d53494d434b,0,1,1767225600*10**9))" "$work/page"
start() {  # name, then env assignments
  local name=$1; shift
  env "$@" redis-server --port 0 --unixsocket "$work/$name.sock" --save '' --appendonly no --dir "$work" \
    --daemonize no --loglevel warning >/dev/null 2>&1 & pids+=($!)
  for _ in $(seq 100); do [ -S "$work/$name.sock" ] && break; sleep 0.05; done
}
start plain
start clock LD_PRELOAD="$lib" SEMSIM_CLOCK_PAGE="$work/page"
[ "$(redis-cli -s "$work/clock.sock" TIME | head -1)" = 1767225600 ] || { echo "the preloaded server does not read the page" >&2; exit 1; }
rate() {  # socket, then redis-benchmark arguments
  local sock=$1; shift
  redis-benchmark -s "$sock" -c 1 -n 100000 -q "$@" | tr -d '\r' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
printf '%-28s %16s %16s %7s\n' "command (-c 1, 100000)" "plain req/s" "clock lib req/s" "ratio"
row() {  # label, then the command's words
  local label=$1; shift
  local a b; a=$(rate "$work/plain.sock" "$@"); b=$(rate "$work/clock.sock" "$@")
  printf '%-28s %16s %16s %7s\n' "$label" "$a" "$b" "$(python3 -c "print(f'{$b/$a:.2f}')")"
}
row "SET k v PX 100000" SET k v PX 100000
row "INCR counter" INCR counter
row "EVAL (a script's TIME)" EVAL "return redis.call('TIME')" 0
echo "library size: $(stat -c %s "$lib") bytes"
