#!/usr/bin/env bash
# One reference driver (drivers/reference/, on the driver kits), its real library under semsim (ctest -L drivers):
#   tests/drivers/reference_driver_test.sh SEMSIM DRIVER CACHE
# DRIVER: redis-semaphore (its Semaphore), redis-semaphore-mutex (its Mutex), redis-py (its Lock),
# redlock (npm redlock over 3 masters: situations of its own, docs/redlock.md's).
# Runs the situations of the published-library suite (tests/libraries/library_test.sh) with the real
# client, each --repeat 5 (real time: a verdict is a rate; 3 at the daily suite's budget, 5 with
# SEMSIM_TEST_BUDGET=full: ctest -L long), asserts each rate over the runs the machine
# did not stall beyond the plan's margin (their unplanned delays, realtime.csv), and writes
# CACHE/results/real-DRIVER.csv, from which tests/libraries/write_results_table.py puts the real
# client's column beside the model's in docs/libraries.md. For redis-semaphore it also replays the
# counterexample that `semsim check` finds in the model against the real library.
# Exit 77 (ctest: skipped) without node/npm or the npm registry, or without Debian's python3-redis.
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM DRIVER CACHE}; driver=${2:?}; cache=${3:?}
here=$(dirname "$(readlink -f "$0")"); root=$(readlink -f "$here/../..")
drivers="$root/drivers/reference"
mkdir -p "$cache/results"

. "$here/npm_library.sh"

case $driver in
  redis-semaphore | redis-semaphore-mutex)
    library=redis-semaphore; version=5.8.0
    npm_library "$library" "$version" node
    kind=semaphore; [ "$driver" = redis-semaphore-mutex ] && kind=mutex
    variant="driver:NODE_PATH=$node_dir/node_modules node $drivers/redis-semaphore.js $kind" ;;
  redlock)
    library=redlock; version=4.2.0
    npm_library "$library" "$version" node-redlock
    variant="driver:NODE_PATH=$node_dir/node_modules node $drivers/redlock-4.js" ;;
  redis-py)
    library=redis-py; version=$(/usr/bin/python3 -c 'import redis; print(redis.__version__)' 2>/dev/null) \
      || { echo "skipped: Debian's python3-redis is not installed"; exit 77; }
    variant="driver:/usr/bin/python3 $drivers/redis-py-lock.py" ;;
  *) echo "unknown driver $driver"; exit 2 ;;
esac

# A folder per budget: the daily run and its long twin (ctest -L long) may run side by side.
out="$cache/runs/real-$driver${SEMSIM_TEST_BUDGET:+-$SEMSIM_TEST_BUDGET}"; rm -rf "$out"; mkdir -p "$out"
# The docs' table (write_results_table.py) reads the full budget's rates; the smaller budget's go below.
repeat=3; results="$cache/results/quick/real-$driver.csv"; mkdir -p "$cache/results/quick"
[ "${SEMSIM_TEST_BUDGET:-}" = full ] && { repeat=5; results="$cache/results/real-$driver.csv"; }
# runs: the clean ones; unplanned_ms: each run's largest unplanned delay, all runs
echo "library,driver,version,situation,runs,invalid,unknown,unplanned_ms,expected,met" >"$results"
failed=0

# repeat.csv of a folder, over the runs whose largest unplanned delay stayed within MARGIN_MS (a run
# the machine stalled by more than the plan's margin says nothing about the library):
# "INVALID UNKNOWN CLEAN RUNS UNPLANNED_MS..." (each run's largest unplanned delay)
tally() {
  python3 - "$1/repeat.csv" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
worst = lambda r: max(float(r[c]) for c in ("lag_max_ms", "step_late_max_ms", "proxy_late_max_ms", "late_lines_max_ms"))
clean = [r for r in rows if worst(r) <= float(sys.argv[2])]
print(sum(r["safety"] == "invalid" for r in clean), sum(r["safety"] == "unknown" for r in clean), len(clean), len(rows),
      " ".join(f"{worst(r):.1f}" for r in rows))
PY
}
# situation, expected rate over the clean runs ("most": at least two thirds invalid, "few": at most a
# third, "any"), the plan's margin in ms, folder of a --repeat run. Fewer than 2 clean runs: too noisy
# to judge here (said, not failed).
record() {
  local situation=$1 expected=$2 margin=$3 dir=$4 invalid unknown clean runs worst met=yes
  read -r invalid unknown clean runs worst < <(tally "$dir" "$margin")  # worst: one figure per run
  if [ "$clean" -lt 2 ] && [ "$expected" != any ]; then
    met=noisy
  else
    case $expected in
      most) [ $((3 * invalid)) -ge $((2 * clean)) ] || met=NO ;;
      few) [ $((3 * invalid)) -le "$clean" ] || met=NO ;;
    esac
  fi
  [ "$met" = NO ] && { failed=1; echo "FAILED $driver: $situation: invalid in $invalid of $clean clean runs, expected $expected"; }
  echo "$library,$driver,$version,\"$situation\",$clean,$invalid,$unknown,$worst,$expected,$met" >>"$results"
  echo "$met  $situation: invalid in $invalid of $clean runs within ${margin} ms of the plan ($runs run; unknown $unknown;" \
       "expected $expected); unplanned ms per run: $worst"
}
run() {  # name, then semsim run arguments
  local name=$1; shift
  "$semsim" run --variant "$variant" --repeat "$repeat" --no-charts --out "$out/$name" "$@" >"$out/$name.log" 2>&1
  local code=$?
  [ $code = 0 ] || { echo "FAILED $driver: $name: semsim run exited $code: $(tail -2 "$out/$name.log")"; failed=1; return 1; }
}
actions() { printf 'at,client,action,arg\n%b' "$1" >"$out/$2"; echo "$out/$2"; }

# npm redlock over 3 masters (quorum 2), 10 s ttl: docs/redlock.md's situations with the real library.
if [ "$driver" = redlock ]; then
  m_actions() { printf 'at,client,action,arg,masters\n%b' "$1" >"$out/$2"; echo "$out/$2"; }
  # Calm: three clients take turns on the lock; nothing breaks it.
  run calm --masters 3 --clients 3 --limit 1 --timeout 2s --hold fixed:50ms --think uniform:10ms..100ms --duration 1500ms \
    && record "3 masters, calm" few 200 "$out/calm"
  # redis.io's restart without persistence, the model's plan (scenarios/redlock-restart-no-persistence.ini
  # over 3 masters): client 1 cannot reach master 3 for its first 100 ms; master 2 restarts empty at
  # 500 ms; client 2 asks at 1 s. The library waits for master 3's answer (no master timeout), which
  # comes at the heal: client 1 holds on all 3, client 2 gets master 2 alone and is refused.
  run restart-short-partition --masters 3 --clients 2 --limit 1 --timeout 10s --duration 1500ms --persistence none \
    --actions-file "$(m_actions '0ms,1,partition,100ms,3\n0ms,1,acquire,3s,\n500ms,0,redis_restart,,2\n1s,2,acquire,1s,\n' \
      restart-short.csv)" \
    && record "master restarts empty after a holder waited for every master (partition 100 ms)" few 300 "$out/restart-short-partition"
  # The same with the partition past client 2's acquire: client 1's votes from masters 1 and 2 came at
  # once, its request to master 3 waits. Master 2 restarts empty at 500 ms; client 2 gets masters 2
  # and 3 at 1 s (holding until 3 s); at the heal (1.5 s) master 3 says no to client 1, whose two votes
  # (one from before the restart) are a quorum within its validity: two holders from 1.5 s.
  run restart --masters 3 --clients 2 --limit 1 --timeout 10s --duration 2500ms --persistence none \
    --actions-file "$(m_actions '0ms,1,partition,1500ms,3\n0ms,1,acquire,3s,\n500ms,0,redis_restart,,2\n1s,2,acquire,2s,\n' \
      restart.csv)" \
    && record "master restarts empty under a holder (Redlock's restart, 3 masters)" most 300 "$out/restart"
  # With aof-always the restarted master keeps client 1's vote: client 2 gets master 3 alone.
  run restart-aof --masters 3 --clients 2 --limit 1 --timeout 10s --duration 2500ms --persistence aof-always \
    --actions-file "$out/restart.csv" && record "the same restart with aof-always" few 300 "$out/restart-aof"
  exit $failed
fi

# The clock-skew test of redis-semaphore's own suite (as tests/libraries/library_test.sh plans it):
# limit 1, lockTimeout 500 ms, the second client's clock 450 or 550 ms ahead, asking 25 ms after the
# first. The Semaphore scores by the clients' clocks; the Mutex and redis-py's Lock lease by Redis's
# TTL, where a client's clock does not count. 25 ms either way flips the order: the margin.
a=$(actions '0ms,1,acquire,10s\n25ms,2,acquire,100ms\n' skew.csv)
for skew in 450 550; do
  printf 'client,skew\n1,fixed:0ms\n2,fixed:%sms\n' "$skew" >"$out/c$skew.csv"
  expected=few; [ "$driver" = redis-semaphore ] && [ $skew = 550 ] && expected=most
  run "skew-$skew" --clients 2 --limit 1 --timeout 500ms --duration 1s --clients-file "$out/c$skew.csv" --actions-file "$a" \
    && record "its own skew test: a clock ${skew} ms ahead (lockTimeout 500 ms)" $expected 25 "$out/skew-$skew"
done

# Redis faults: client 1 holds the only permit (10 s lease) when the fault strikes; client 2 asks after.
held='0ms,1,acquire,5s\n'
run restart --clients 2 --limit 1 --timeout 10s --duration 1s --persistence none \
  --actions-file "$(actions "${held}100ms,0,redis_restart,\n200ms,2,acquire,1s\n" restart.csv)" \
  && record "Redis restarts without persistence" most 100 "$out/restart"
run restart-aof --clients 2 --limit 1 --timeout 10s --duration 1s --persistence aof-always \
  --actions-file "$out/restart.csv" && record "Redis restarts with aof-always" few 100 "$out/restart-aof"
run failover --clients 2 --limit 1 --timeout 10s --duration 1s --replicas 1 \
  --actions-file "$(actions "100ms,1,acquire,5s\n300ms,0,failover,250ms\n400ms,2,acquire,1s\n" failover.csv)" \
  && record "failover to a replica 250 ms behind" most 100 "$out/failover"
# The GC-pause critique of leases: client 1 takes the lock (500 ms lease), its process is stopped for
# 1 s, the lease ends, client 2 takes it at 800 ms, client 1 resumes believing it holds.
run gc-pause --clients 2 --limit 1 --timeout 500ms --duration 2s \
  --actions-file "$(actions '0ms,1,acquire,2s\n100ms,1,pause,1s\n800ms,2,acquire,1s\n' gc-pause.csv)" \
  && record "a client pauses past its lease (GC pause)" most 200 "$out/gc-pause"

# The counterexample `semsim check` finds in the model, replayed against the real library.
if [ "$driver" = redis-semaphore ]; then
  [ -d "$cache/redis-semaphore" ] || "$root/tests/libraries/fetch_libraries.sh" "$cache" redis-semaphore >/dev/null || exit $?
  "$semsim" check --variant "script:$cache/redis-semaphore/redis-semaphore.ini" --cases 300 --seed 1 --no-preconditions \
    --out "$out/check" >"$out/check.log" 2>&1
  if [ -f "$out/check/counterexample.ini" ]; then
    "$semsim" scenario "$out/check/counterexample.ini" --variant "$variant" --repeat "$repeat" --out "$out/replay" >"$out/replay.log" 2>&1
    code=$?
    [ $code = 0 ] || [ $code = 1 ] || { echo "FAILED $driver: the counterexample's replay exited $code: $(tail -2 "$out/replay.log")"; failed=1; }
    replay=$(find "$out/replay" -name repeat.csv | head -1)
    [ -n "$replay" ] && record "semsim check outside its rule (up to 300 cases): counterexample" any 1000000 "$(dirname "$replay")"
  else
    echo "FAILED $driver: semsim check found no counterexample to replay: $(tail -2 "$out/check.log")"; failed=1
  fi
fi
exit $failed
