#!/usr/bin/env bash
# The conformance card on the reference drivers' real libraries (ctest -L conformance): the three
# problems docs/conformance.md names are defect cells, and redis-py's Lock and redis-semaphore's
# single-Redis Semaphore have none.
#   tests/conformance/reference_cards_test.sh SEMSIM CACHE
# npm packages pinned, installed into CACHE (tests/drivers/npm_library.sh); exit 77 (skipped) without
# node/npm or the npm registry, or without Debian's python3-redis.
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM CACHE}; cache=${2:?}
here=$(dirname "$(readlink -f "$0")"); root=$(readlink -f "$here/../..")
. "$root/tests/drivers/npm_library.sh"
/usr/bin/python3 -c 'import redis' 2>/dev/null || { echo "skipped: Debian's python3-redis is not installed"; exit 77; }
ref=$root/drivers/reference
npm_library redis-lock 1.0.0 node-redis-lock redis@4.7.1; lock=$node_dir/node_modules
npm_library redis-semaphore 5.8.0 node; semaphore=$node_dir/node_modules
npm_library redlock 4.2.0 node-redlock; redlock4=$node_dir/node_modules
npm_library redlock 5.0.0-beta.2 node-redlock-5; redlock5=$node_dir/node_modules
out="$cache/runs/conformance-cards"; rm -rf "$out"; mkdir -p "$out"
failed=0
card() {  # name, expected exit, then conformance's arguments
  local name=$1 expected=$2; shift 2
  "$semsim" conformance --out "$out/$name" "$@" >"$out/$name.log" 2>&1; local code=$?
  [ "$code" = "$expected" ] || { echo "FAILED card $name: exit $code, expected $expected: $(tail -3 "$out/$name.log")"; failed=1; }
}
verdict() {  # card, folder, situation: the cell's verdict
  python3 -c "import csv,sys; print(next((r['verdict'] for r in csv.DictReader(open(sys.argv[1])) if r['folder'] == sys.argv[2] and r['situation'] == sys.argv[3]), 'missing'))" \
    "$out/$1/conformance.csv" "$2" "$3"
}
expect() {  # card, folder, situation, verdict
  local got; got=$(verdict "$1" "$2" "$3")
  [ "$got" = "$4" ] && echo "ok    $2 $3: $got" || { echo "FAILED $2 $3: $got, expected $4"; failed=1; }
}
none_is_defect() {  # card, folder
  if grep -q ",$2,.*,defect," "$out/$1/conformance.csv"; then
    echo "FAILED $2: a defect cell: $(grep ",$2,.*,defect," "$out/$1/conformance.csv" | head -1)"; failed=1
  else
    echo "ok    $2: no defect in $(($(grep -c ",$2," "$out/$1/conformance.csv"))) cells"
  fi
}

# One Redis, limit 1: redis-lock's token-less release; redis-py's Lock, every situation.
card locks 1 --variant "driver:NODE_PATH=$lock node $ref/redis-lock.js" --variant "driver:/usr/bin/python3 $ref/redis-py-lock.py"
expect locks redis-lock late-release defect
expect locks redis-lock double-release defect
expect locks redis-lock paused-past-lease "lease limit"
none_is_defect locks redis-py-lock
# redis-semaphore's single-Redis Semaphore at limit 2: no defect; its clocks' limit said.
card semaphore 0 --limit 2 --variant "driver:NODE_PATH=$semaphore node $ref/redis-semaphore.js semaphore"
none_is_defect semaphore redis-semaphore-semaphore
expect semaphore redis-semaphore-semaphore clock-ahead "lease limit"
# Over 5 masters: redlock 5's missing validity check (4.2.0 has it); RedlockSemaphore's votes per master.
card validity 1 --masters 5 --situation masters-pause-in-flight \
  --variant "driver:NODE_PATH=$redlock4 node $ref/redlock-4.js" --variant "driver:NODE_PATH=$redlock5 node $ref/redlock-5.js"
expect validity redlock-4 masters-pause-in-flight holds
expect validity redlock-5 masters-pause-in-flight defect
card votes 1 --masters 5 --limit 2 --situation masters-vote-orders \
  --variant "driver:NODE_PATH=$semaphore node $ref/redis-semaphore.js redlock-semaphore"
expect votes redis-semaphore-redlock-semaphore masters-vote-orders defect
grep -q 'redis-lock@1.0.0' "$out/locks/conformance.html" || { echo "FAILED: the matrix does not name redis-lock@1.0.0"; failed=1; }
exit $failed
