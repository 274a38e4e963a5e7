#!/usr/bin/env bash
# One published library, as published, under semsim (ctest -L libraries):
#   tests/libraries/library_test.sh SEMSIM LIBRARY CACHE
# Fetches it (fetch_libraries.sh; exit 77 = skipped without npm, its registry or Debian's
# python3-redis), runs each situation,
# asserts the verdict we expect, and writes CACHE/results/LIBRARY.csv, from which
# tests/libraries/write_results_table.py generates docs/libraries.md.
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM LIBRARY CACHE}; library=${2:?}; cache=${3:?}
here=$(dirname "$(readlink -f "$0")")
# Fetched by ctest's fixture (npm.packages) when run by ctest: fetching again here would rewrite the
# folder under the other tests that read it.
[ -d "$cache/$library" ] || "$here/fetch_libraries.sh" "$cache" "$library" || exit $?
dir="$cache/$library"; out="$cache/runs/$library"; rm -rf "$out"; mkdir -p "$out" "$cache/results"
results="$cache/results/$library.csv"
case $library in
  redis-semaphore) version=5.8.0; ini="$dir/redis-semaphore.ini" ;;
  redlock) version=4.2.0; ini="$dir/redlock.ini" ;;
  sesame-redlock) version=1.4.0; ini="$dir/sesame-redlock.ini" ;;
  redis-py) version=$(cat "$dir/version"); ini="$dir/redis-py.ini" ;;
  *) echo "unknown library $library"; exit 2 ;;
esac
echo "library,version,situation,expected,over_admission,lost_permits,max_stale,safety,met" >"$results"
failed=0

col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
record() {  # situation, expected over_admission, run folder (or "" with a check's outcome in $4)
  local situation=$1 want=$2 run=$3 over lost stale safety met
  if [ -n "$run" ]; then
    over=$(col "$run/summary.csv" over_admission); lost=$(col "$run/summary.csv" lost_permits)
    stale=$(col "$run/summary.csv" max_stale); safety=$(col "$run/summary.csv" safety)
    [ "$(col "$run/summary.csv" samples)" = 0 ] && stale=  # no admission set to sample
  else
    over=$4; lost=; stale=; safety=$5
  fi
  met=yes; [ "$over" = "$want" ] || { met=NO; failed=1; echo "FAILED $library: $situation: over_admission $over, expected $want"; }
  # "Never two holders" is no finding about a library that never granted (or whose calls mostly
  # failed): such a run is not exercised (reports/DEFINITIONS.md), and its row does not pass.
  if [ -n "$run" ] && [ "$(col "$run/summary.csv" exercised)" != yes ]; then
    met=NO; failed=1; echo "FAILED $library: $situation: the run never exercised the library (granted $(col "$run/summary.csv" granted))"
  fi
  echo "$library,$version,\"$situation\",$want,$over,$lost,$stale,$safety,$met" >>"$results"
  echo "$met  $situation: over_admission $over (expected $want) ${lost:+lost_permits $lost }safety $safety"
}
run() {  # name, then semsim run arguments
  local name=$1; shift
  "$semsim" run --variant "script:$ini" --mode virtual --no-charts --out "$out/$name" "$@" >"$out/$name.log" 2>&1
  local code=$?
  [ $code = 0 ] || { echo "FAILED $library: $name: semsim run exited $code: $(tail -2 "$out/$name.log")"; failed=1; return 1; }
}
actions() { printf 'at,client,action,arg\n%b' "$1" >"$out/$2"; echo "$out/$2"; }

if [ "$library" = redis-semaphore ] || [ "$library" = redis-py ]; then
  # redis-semaphore's own clock-skew test (test/src/RedisSemaphore.test.ts style): limit 1, lockTimeout 500 ms;
  # a client whose clock is 450 ms ahead is refused, 550 ms ahead admitted. The second asks 25 ms
  # after the first: the real client runs the same plan (tests/drivers/reference_driver_test.sh), where
  # 25 ms either way is what real scheduling may take before the order of the two flips.
  # redis-py's Lock leases by Redis's TTL, where a client's clock does not count: refused both times.
  a=$(actions '0ms,1,acquire,10s\n25ms,2,acquire,100ms\n' skew.csv)
  for skew in 450 550; do
    printf 'client,skew\n1,fixed:0ms\n2,fixed:%sms\n' "$skew" >"$out/c$skew.csv"
    want=0; [ "$library" = redis-semaphore ] && [ $skew = 550 ] && want=1
    run "skew-$skew" --clients 2 --limit 1 --timeout 500ms --duration 1s --clients-file "$out/c$skew.csv" --actions-file "$a" \
      && record "its own skew test: a clock ${skew} ms ahead (lockTimeout 500 ms)" $want "$out/skew-$skew"
  done
fi
if [ "$library" != redis-semaphore ]; then
  # Its own lock semantics (test.js style): a held lock refuses a second client; once unlocked,
  # the lock is granted again; an unreleased lock expires after its TTL.
  a=$(actions '0ms,1,acquire,200ms\n100ms,2,acquire,100ms\n300ms,3,acquire,100ms\n' lock.csv)
  run lock --clients 3 --limit 1 --timeout 1s --duration 1s --actions-file "$a" \
    && record "its own lock test: held refuses, unlocked grants again" 0 "$out/lock"
fi

# Its documented safety rule, searched by semsim check inside and outside it.
"$semsim" check --variant "script:$ini" --cases 100 --seed 1 --out "$out/check-in" >"$out/check-in.log" 2>&1; code=$?
record "semsim check inside its rule (100 cases)" 0 "" "$([ $code = 0 ] && echo 0 || echo 1)" "$([ $code = 0 ] && echo valid || echo invalid)"
"$semsim" check --variant "script:$ini" --cases 300 --seed 1 --no-preconditions --out "$out/check-out" >"$out/check-out.log" 2>&1; code=$?
record "semsim check outside its rule (up to 300 cases): counterexample" 1 "" "$([ $code = 1 ] && echo 1 || echo 0)" \
  "$([ $code = 1 ] && echo invalid || echo valid)"

# Redis faults: client 1 holds the only permit (10 s lease) when the fault strikes; client 2 asks after.
held='0ms,1,acquire,5s\n'
run restart --clients 2 --limit 1 --timeout 10s --duration 1s --persistence none \
  --actions-file "$(actions "${held}100ms,0,redis_restart,\n200ms,2,acquire,1s\n" restart.csv)" \
  && record "Redis restarts without persistence" 1 "$out/restart"
run restart-aof --clients 2 --limit 1 --timeout 10s --duration 1s --persistence aof-always \
  --actions-file "$out/restart.csv" && record "Redis restarts with aof-always" 0 "$out/restart-aof"
run failover --clients 2 --limit 1 --timeout 10s --duration 1s --replicas 1 \
  --actions-file "$(actions "100ms,1,acquire,5s\n300ms,0,failover,250ms\n400ms,2,acquire,1s\n" failover.csv)" \
  && record "failover to a replica 250 ms behind" 1 "$out/failover"
# The GC-pause critique of leases: client 1 takes the lock (500 ms lease), pauses 1 s, the lease
# ends, client 2 takes it at 800 ms, client 1 resumes believing it holds: both hold.
gc=$(actions '0ms,1,acquire,2s\n100ms,1,pause,1s\n800ms,2,acquire,1s\n' gc-pause.csv)
run gc-pause --clients 2 --limit 1 --timeout 500ms --duration 2s --actions-file "$gc" \
  && record "a client pauses past its lease (GC pause)" 1 "$out/gc-pause"
if [ "$library" = redlock ]; then
  # Beside it, the lua variant's fencing tokens: the same pause, each grant numbered. A resource
  # that remembers the highest token it has seen refuses client 1's late write (token 1 < 2).
  "$semsim" run --variant lua --mode virtual --clients 2 --limit 1 --timeout 500ms --duration 2s --actions-file "$gc" \
    --no-charts --out "$out/gc-pause-lua" >"$out/gc-pause-lua.log" 2>&1
  tokens=$(python3 - "$out/gc-pause-lua/history.csv" <<'PY'
import csv, sys
print(" ".join(f"client{r['client']}:{r['detail']}" for r in csv.DictReader(open(sys.argv[1]))
               if r['op'] == 'acquire' and r['phase'] == 'ok'))
PY
)
  echo "fencing tokens under the same pause (lua): $tokens"
  [ "$tokens" = "client1:token=1 client2:token=2" ] || { echo "FAILED: fencing tokens: $tokens"; failed=1; }
  record "the same pause under lua: grants carry tokens 1 then 2, so a resource refuses client 1's late write" 1 "$out/gc-pause-lua"
fi
exit $failed
