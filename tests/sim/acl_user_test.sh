#!/usr/bin/env bash
# Least privilege: semsim runs every built-in variant as a Redis ACL user that may touch only
# keys under semsim:* and has no @dangerous command (no INFO, no CONFIG, no FLUSH*): the exact
# line documented in docs/your-redis.md. Foreign keys are untouched and no key is left behind.
#   acl_user_test.sh PATH/TO/semsim
set -euo pipefail
semsim=$1
dir=$(mktemp -d); pass='acl-test-password'
sock=$dir/redis.sock
cat >"$dir/redis.conf" <<CONF
port 0
unixsocket $sock
save ""
appendonly no
dir $dir
user default on >$pass ~* &* +@all
user sem on >$pass ~semsim:* -@all +@read +@write +@transaction +@scripting +@connection +time
CONF
redis-server "$dir/redis.conf" >/dev/null 2>&1 & rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; rm -rf "$dir"' EXIT
cli() { redis-cli -s "$sock" --user default --pass "$pass" --no-auth-warning "$@"; }
for _ in $(seq 100); do cli PING >/dev/null 2>&1 && break; sleep 0.05; done
cli SET app:data 1 >/dev/null
[ "$(redis-cli -s "$sock" --user sem --pass "$pass" --no-auth-warning INFO server 2>&1 | head -1 | cut -c1-6)" = NOPERM ] \
  || { echo "FAIL: the ACL user may run INFO: the test proves nothing"; exit 1; }
for v in $("$semsim" run --list-variants); do
  limit=2; [ "$v" = redlock ] && limit=1  # a lock: one holder (docs/redlock.md)
  SEMSIM_REDIS_PASSWORD=$pass "$semsim" run --redis "unix://$sock" --variant "$v" --clients 4 --limit $limit \
    --duration 200ms --mode paced --no-charts --out "$dir/out-$v" >"$dir/$v.log" 2>&1 \
    || { echo "FAIL: $v as ACL user sem: $(tail -2 "$dir/$v.log")"; exit 1; }
done
[ "$(cli GET app:data)" = 1 ] || { echo "FAIL: a foreign key changed"; exit 1; }
[ "$(cli --scan --pattern 'semsim:*' | wc -l)" = 0 ] || { echo "FAIL: keys left under semsim:*"; exit 1; }
echo "every built-in variant runs as an ACL user limited to ~semsim:* without @dangerous"
