#!/usr/bin/env bash
# A user's Redis keeps its data (docs/your-redis.md): no script word may name a key outside the
# run's prefix, and a command must be a data command (Redis 7.0's command table says which words
# are keys and which commands are @admin or @dangerous; refused before anything is sent, exit 2,
# naming the file, the line and the key or command); a run killed with SIGKILL leaves keys that
# expire, and says its prefix in run.ini and in the history's run row; a script that never returns
# is killed (SCRIPT KILL, said on stderr), and the server answers again.
#   user_redis_safety_test.sh PATH/TO/semsim
set -u
semsim=${1:?usage: $0 PATH/TO/semsim}
dir=$(mktemp -d); sock=$dir/redis.sock; rpid= kpid=
trap '[ -n "$kpid" ] && kill -KILL $kpid 2>/dev/null; [ -n "$rpid" ] && kill $rpid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
redis-server --port 0 --unixsocket "$sock" --save '' --appendonly no --dir "$dir" >/dev/null 2>&1 & rpid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
cli() { redis-cli -s "$sock" "$@"; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
run() { "$semsim" run --redis "unix://$sock" --mode paced --clients 2 --duration 300ms --no-charts "$@"; }

# Every word Redis takes as a key, in any operation, the setup first.
ok_words='acquire.command = SET {key} {id} NX PX {timeout_ms}
acquire.granted = "OK"
acquire.refused = nil'
n=0
while IFS='|' read -r line expect; do
  n=$((n + 1)); ini=$dir/foreign$n.ini
  printf '%s\n%s\n' "$ok_words" "$line" >"$ini"
  grep -q '^release' "$ini" || echo 'release.command = DEL {key}' >>"$ini"
  cli set app:z keep >/dev/null
  run --variant "script:$ini" --out "$dir/f$n" >"$dir/f$n.log" 2>&1; code=$?
  [ "$code" = 2 ] || fail "$line: exit $code, expected 2"
  grep -q "$ini:4: .*$expect" "$dir/f$n.log" || fail "$line: the message does not name $ini:4 and '$expect': $(tail -1 "$dir/f$n.log")"
  [ "$(cli get app:z)" = keep ] || fail "$line: the user's key app:z changed"
  [ "$(cli dbsize)" = 1 ] || fail "$line: something was written: $(cli --scan | head -3)"
done <<'CASES'
setup.command = DEL {key} app:z|'app:z' is a key outside
release.command = DEL {key} app:z|'app:z' is a key outside
setup.command = MSET {key} 1 app:z x|'app:z' is a key outside
setup.command = SORT {key} STORE app:z|SORT is a dangerous command
setup.command = ZUNIONSTORE {key} 2 {key:a} app:z|'app:z' is a key outside
setup.command = REPLICAOF {key} 6379|REPLICAOF is an admin command
setup.command = CONFIG {key} requirepass x|CONFIG .* is not a subcommand
setup.command = RENAME {key} app:z|'app:z' is a key outside
setup.command = EVAL "redis.call('del','app:z')" 0|EVAL runs a script
setup.command = COPY {key} {key:x} DB 1|COPY reaches another database
admission_set = app:z|'app:z' is not a key of this run
CASES
# ... while words that are no keys are left alone, and keys under the prefix are fine.
printf '%s\n%s\n' "$ok_words" 'release.command = DEL {key} {key:other}
setup.command = SET {key:note} app:z' >"$dir/own.ini"
run --variant "script:$dir/own.ini" --out "$dir/own" >"$dir/own.log" 2>&1 \
  || fail "a variant that keeps to its own keys: exit $?: $(tail -2 "$dir/own.log")"
[ "$(cli dbsize)" = 1 ] || fail "keys left behind by a clean run"

# SIGKILL: every key left has an expiry; the prefix is in run.ini and the history's run row.
"$semsim" run --variant fair --redis "unix://$sock" --mode paced --clients 5 --duration 60s --no-charts \
  --out "$dir/k9" >"$dir/k9.log" 2>&1 & kpid=$!
sleep 3; kill -KILL $kpid; wait $kpid 2>/dev/null; kpid=
left=$(cli --scan --pattern 'semsim:*')
[ -n "$left" ] || fail "SIGKILL: the run wrote no keys in 3 s"
for k in $left; do
  ttl=$(cli ttl "$k")
  [ "$ttl" -gt 0 ] && [ "$ttl" -le 360 ] || fail "a key left by a SIGKILLed run: $k has ttl $ttl (expected up to 60 s + 5 min)"
done
prefix=$(echo "$left" | head -1 | cut -d: -f1-2):
grep -q "^# keys under $prefix" "$dir/k9/run.ini" || fail "run.ini does not name the prefix $prefix"
head -2 "$dir/k9/history.csv" | grep -q "prefix=$prefix" || fail "the history's run row does not name the prefix $prefix"
cli --scan --pattern 'semsim:*' | xargs -r redis-cli -s "$sock" unlink >/dev/null

# SIGKILL again, under a script that makes keys inside Lua (names no request carries, one of them
# with a library's prefix before the run's): the net's watcher gives them the expiry, even those
# made in the last second, and then exits.
printf '%s\n' "redis.call('SET', KEYS[1] .. ':made-in-lua:' .. ARGV[1], 1)" \
  "redis.call('SET', 'lib:' .. KEYS[1] .. ':' .. ARGV[1], 1)" 'return 1' >"$dir/makes.lua"
printf '%s\n' 'acquire = makes.lua' 'acquire.keys = {key}' 'acquire.args = {id}' 'acquire.granted = 1' \
  'acquire.refused = 0' 'release.command = DEL {key}' 'release.ok = 0 1' 'release.missing = nil' >"$dir/makes.ini"
for at in 0.4 1.2; do
  "$semsim" run --variant "script:$dir/makes.ini" --redis "unix://$sock" --mode paced --clients 4 --hold fixed:5ms \
    --think fixed:5ms --duration 60s --no-charts --out "$dir/lua-k9" >"$dir/lua-k9.log" 2>&1 & kpid=$!
  sleep $at; kill -KILL $kpid; wait $kpid 2>/dev/null; kpid=
  sleep 1
  made=$(cli --scan --pattern '*semsim:*')
  [ -n "$made" ] || fail "SIGKILL at $at s: the script made no keys ($(tail -1 "$dir/lua-k9.log"))"
  echo "$made" | grep -q '^lib:' || fail "SIGKILL at $at s: no library-prefixed key was made"
  without=0
  for k in $made; do [ "$(cli ttl "$k")" -gt 0 ] || without=$((without + 1)); done
  [ "$without" = 0 ] || fail "SIGKILL at $at s: $without of $(echo "$made" | wc -l) keys made inside Lua have no expiry"
  # This run's watcher only (its environment names this test's socket: ctest runs other runs beside),
  # given 10 s to exit after its last look.
  ours() { for w in $(pgrep -f 'semsim key-net-watch'); do
    tr '\0' '\n' <"/proc/$w/environ" 2>/dev/null | grep -qx "SEMSIM_NET_UNIX=$sock" && echo "$w"; done; }
  for _ in $(seq 100); do [ -z "$(ours)" ] && break; sleep 0.1; done
  [ -z "$(ours)" ] || fail "the key net's watcher outlived its last look by 10 s (pid $(ours))"
  cli --scan --pattern '*semsim:*' | xargs -r redis-cli -s "$sock" unlink >/dev/null
done

# A script that never returns: SCRIPT KILL, said, and the server answers again.
echo 'while true do end' >"$dir/forever.lua"
printf 'acquire = forever.lua\nrelease.command = DEL {key}\n' >"$dir/forever.ini"
timeout 60 "$semsim" run --variant "script:$dir/forever.ini" --redis "unix://$sock" --mode paced --clients 2 \
  --duration 1s --command-timeout 1s --no-charts --out "$dir/forever" >"$dir/forever.log" 2>&1
[ "$(cli ping 2>&1)" = PONG ] || fail "a runaway script left the server busy"
grep -q "sent SCRIPT KILL to redis .* at unix://$sock.*killed" "$dir/forever.log" \
  || fail "SCRIPT KILL is not said: $(grep -i script "$dir/forever.log")"
[ "$(cli --scan --pattern 'semsim:*' | wc -l)" = 0 ] || fail "keys left after the killed script"
[ "$failed" = 0 ] && echo "no foreign key touched; a killed run's keys expire; a runaway script is killed"
exit $failed
