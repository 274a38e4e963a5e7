#!/usr/bin/env bash
# A driver's Lua on the user's (passworded) Redis, through its proxy (docs/drivers.md, what a driver
# may send): a library's own lock script runs (EVALSHA, NOSCRIPT, EVAL, then EVALSHA of the script
# the proxy read); a script calling FLUSHALL or deleting a key it was not given is refused, exit
# 2, naming it, nothing of it passed on; an EVALSHA of a script the user's server holds (one the
# proxy never read) gets NOSCRIPT and does not run. The user's keys survive every run.
#   tests/drivers/proxy_scripts_test.sh SEMSIM
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM}
here=$(dirname "$(readlink -f "$0")"); driver="python3 $here/script_driver.py"
out=$(mktemp -d); pass='pr0xy-Scr1pts'
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --requirepass "$pass" --save '' --appendonly no --dir "$out" >/dev/null 2>&1 & rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; rm -rf "$out"' EXIT
cli() { redis-cli -p "$port" -a "$pass" --no-auth-warning "$@"; }
for _ in $(seq 100); do cli PING >/dev/null 2>&1 && break; sleep 0.05; done
cli SET app:z keep >/dev/null
users=$(cli SCRIPT LOAD "return redis.call('DEL', 'app:z')")
fail() { echo "FAILED: $*"; exit 1; }
run() {  # name, driver arguments
  local name=$1; shift
  SEMSIM_REDIS_PASSWORD=$pass "$semsim" run --redis "redis://127.0.0.1:$port" --variant "driver:$driver $*" --mode paced \
    --clients 2 --limit 1 --timeout 2s --hold fixed:50ms --think fixed:50ms --duration 1s --no-charts --out "$out/$name" \
    >"$out/$name.log" 2>&1
}

run lock lock; code=$?
[ "$code" = 0 ] || fail "a library's own lock script: exit $code: $(tail -3 "$out/lock.log")"
python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[-1]; sys.exit(0 if int(r['granted']) > 0 else 1)" \
  "$out/lock/summary.csv" || fail "a library's own lock script: nothing granted"
grep -q 'NOSCRIPT' "$out/lock/drivers/client-1.stderr" && grep -q 'EVAL -> :1' "$out/lock/drivers/client-1.stderr" \
  && grep -q 'EVALSHA -> :1' "$out/lock/drivers/client-1.stderr" \
  || fail "the lock script did not go EVALSHA (NOSCRIPT), EVAL, then EVALSHA: $(head -5 "$out/lock/drivers/client-1.stderr")"

run flushall flushall; code=$?
[ "$code" = 2 ] || fail "EVAL of redis.call('FLUSHALL'): exit $code, expected 2"
grep -q "EVAL with a script that semsim does not run on your Redis: line 1: calls FLUSHALL is a dangerous command" "$out/flushall.log" \
  || fail "EVAL of FLUSHALL: the refusal does not name it: $(tail -2 "$out/flushall.log")"

run foreign foreign; code=$?
[ "$code" = 2 ] && grep -q "a key that is not KEYS\[i\]" "$out/foreign.log" \
  || fail "EVAL deleting app:z: exit $code, expected 2 naming the key rule: $(tail -2 "$out/foreign.log")"

run users users "$users"; code=$?
grep -q 'EVALSHA -> -NOSCRIPT' "$out/users/drivers/client-1.stderr" \
  || fail "EVALSHA of the user's script: $(head -2 "$out/users/drivers/client-1.stderr") (exit $code)"

[ "$(cli GET app:z)" = keep ] || fail "the user's key app:z was changed"
[ "$(cli DBSIZE)" = 1 ] || fail "the user's Redis holds $(cli DBSIZE) keys after the runs, expected 1 (app:z)"
echo "lock script ran; FLUSHALL and a foreign key refused (exit 2); an unread EVALSHA got NOSCRIPT; app:z kept"
