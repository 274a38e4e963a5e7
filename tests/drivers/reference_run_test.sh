#!/usr/bin/env bash
# One reference driver (drivers/reference/, on the driver kits) with its real library, a short run
# (ctest -L conformance, -L drivers):  tests/drivers/reference_run_test.sh SEMSIM DRIVER CACHE
# Two clients take turns on one permit for 2 s, paced and warped (--mode virtual), over 3 masters
# for the Redlock libraries; each run must succeed and be exercised (summary.csv: exercised=yes, at
# least one grant), and the driver's ready line must name the library and the version installed;
# two warped runs of one seed must give one history.csv.
# npm packages pinned, installed into CACHE (tests/drivers/npm_library.sh); exit 77 (skipped) without
# node/npm or the npm registry, or without Debian's python3-redis.
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM DRIVER CACHE}; driver=${2:?}; cache=${3:?}
here=$(dirname "$(readlink -f "$0")"); root=$(readlink -f "$here/../..")
. "$here/npm_library.sh"
reference="$root/drivers/reference"

masters=1
on_node() { echo "NODE_PATH=$node_dir/node_modules node $reference/$*"; }
case $driver in
  redis-lock)
    npm_library redis-lock 1.0.0 node-redis-lock redis@4.7.1; named=redis-lock@1.0.0; command=$(on_node redis-lock.js) ;;
  redis-semaphore | redis-semaphore-mutex | redis-semaphore-redlock-semaphore | redis-semaphore-redlock-mutex)
    npm_library redis-semaphore 5.8.0 node; named=redis-semaphore@5.8.0
    kind=${driver#redis-semaphore}; kind=${kind#-}
    command=$(on_node redis-semaphore.js "${kind:-semaphore}")
    case $kind in redlock-*) masters=3 ;; esac ;;
  redlock-4)
    npm_library redlock 4.2.0 node-redlock; named=redlock@4.2.0; masters=3; command=$(on_node redlock-4.js) ;;
  redlock-5)
    npm_library redlock 5.0.0-beta.2 node-redlock-5; named=redlock@5.0.0-beta.2; masters=3; command=$(on_node redlock-5.js) ;;
  sesame-redlock)
    npm_library @sesamecare-oss/redlock 1.4.0 node-sesame-redlock; named=@sesamecare-oss/redlock@1.4.0; masters=3
    command=$(on_node redlock-5.js @sesamecare-oss/redlock) ;;
  redis-py)
    version=$(/usr/bin/python3 -c 'import redis; print(redis.__version__)' 2>/dev/null) \
      || { echo "skipped: Debian's python3-redis is not installed"; exit 77; }
    named=redis-py@$version; command="/usr/bin/python3 $reference/redis-py-lock.py" ;;
  *) echo "unknown driver $driver"; exit 2 ;;
esac

out="$cache/runs/reference-$driver"; rm -rf "$out"; mkdir -p "$out"
col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
failed=0
for mode in paced virtual; do
  # tee keeps what the drivers said (semsim reads it through the pipe as before).
  "$semsim" run --mode $mode --variant "driver:$command | tee -a $out/$mode.lines" --masters $masters --clients 2 --limit 1 \
    --timeout 500ms --duration 2s --no-charts --out "$out/$mode" >"$out/$mode.log" 2>&1
  code=$?
  if [ $code != 0 ]; then echo "FAILED $driver, $mode: semsim run exited $code: $(tail -3 "$out/$mode.log")"; failed=1; continue; fi
  exercised=$(col "$out/$mode/summary.csv" exercised); granted=$(col "$out/$mode/summary.csv" granted)
  if [ "$exercised" = yes ] && [ "$granted" -ge 1 ]; then
    echo "ok  $driver, $mode over $masters master(s): exercised, $granted grants"
  else
    echo "FAILED $driver, $mode: exercised=$exercised granted=$granted"; failed=1
  fi
  ready=$(grep -c " driver ok - ready library=$named\$" "$out/$mode.lines")
  if [ "$ready" = 2 ]; then echo "ok  $driver, $mode: both ready lines say library=$named"
  else echo "FAILED $driver, $mode: $ready of 2 ready lines say library=$named: $(grep ' driver ok' "$out/$mode.lines")"; failed=1; fi
done
# Warped, one seed gives one history, byte for byte: the library's identifiers included (node's
# OpenSSL mixes a thread's address into what it draws: warp starts drivers without address
# randomization).
for again in 1 2; do
  "$semsim" run --mode virtual --variant "driver:$command" --masters $masters --clients 2 --limit 1 --timeout 500ms \
    --duration 2s --seed 11 --no-charts --out "$out/seed-$again" >"$out/seed-$again.log" 2>&1 \
    || { echo "FAILED $driver, warped seed 11: exit $?: $(tail -3 "$out/seed-$again.log")"; failed=1; }
done
if cmp -s "$out/seed-1/history.csv" "$out/seed-2/history.csv"; then
  echo "ok  $driver, warped: one seed, one history.csv (identifiers included)"
else
  echo "FAILED $driver, warped: two runs of seed 11 differ: $(cmp "$out/seed-1/history.csv" "$out/seed-2/history.csv" 2>&1)"; failed=1
fi
exit $failed
