#!/usr/bin/env bash
# The published multi-master code, as published, over 5 masters (ctest -L libraries):
#   tests/libraries/masters_test.sh SEMSIM LIBRARY CACHE     LIBRARY: redis-semaphore, redlock, redlock-5
# redis-semaphore 5.8.0's RedlockMutex and RedlockSemaphore, redlock 4.2.0 and redlock 5 each run
# the timelines of docs/redlock.md (scenarios/redlock-*.ini) and the verdict we expect is asserted.
# Writes CACHE/results/LIBRARY-masters.csv, from which write_results_table.py generates
# docs/libraries.md. Fetching as library_test.sh (exit 77 = skipped without npm or network).
set -uo pipefail
semsim=${1:?usage: $0 SEMSIM LIBRARY CACHE}; library=${2:?}; cache=${3:?}
here=$(dirname "$(readlink -f "$0")")
# Fetched by ctest's fixture (npm.packages) when run by ctest: fetching again here would rewrite the
# folder under the other tests that read it.
[ -d "$cache/$library" ] || "$here/fetch_libraries.sh" "$cache" "$library" || exit $?
out="$cache/runs/$library-masters"; rm -rf "$out"; mkdir -p "$out" "$cache/results"
results="$cache/results/$library-masters.csv"
echo "library,version,situation,expected,over_admission,lost_permits,max_stale,safety,met" >"$results"
failed=0

col() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1][sys.argv[2]])" "$1" "$2"; }
actions() { local f="$out/$1.csv"; shift; { echo 'at,client,action,arg,masters'; printf '%s\n' "$@"; } >"$f"; echo "$f"; }
# The timelines (docs/redlock.md): client 1 holds on masters 1, 2, 3 (4 and 5 unreachable while it
# asks) when master 3 restarts or its clock jumps; client 2 asks later.
restart=$(actions restart 0ms,1,partition,100ms,'4 5' 0ms,1,acquire,8s, 1s,0,redis_restart,,3 6500ms,2,acquire,1s,)
long_cut=$(actions long-cut 0ms,1,partition,7s,'4 5' 0ms,1,acquire,8s, 1s,0,redis_restart,,3 6500ms,2,acquire,1s,)
delayed=$(actions delayed 0ms,1,partition,100ms,'4 5' 0ms,1,acquire,8s, 1s,0,redis_restart,10100ms,3 6500ms,2,acquire,1s,)
jump=$(actions jump 0ms,1,partition,100ms,'4 5' 0ms,1,acquire,5s, 1s,0,server_jump,+9500ms,3 2s,2,acquire,5s,)
minority=$(actions minority 0ms,1,acquire,5s, 1s,0,server_jump,+9500ms,'4 5' 2s,2,acquire,5s,)
in_flight=$(actions in-flight 0ms,1,acquire,1s, 500us,1,pause,9900ms, 10500ms,2,acquire,5s,)
gc=$(actions gc 0ms,1,acquire,3s, 100ms,1,pause,2s, 1500ms,2,acquire,1s,)
votes=$(actions votes 0ms,1,acquire,1s, 0ms,2,acquire,1s, 0ms,3,acquire,1s,)
cp "$here/../../scenarios/redlock-votes.links.csv" "$out/links.csv"

# class, version, INI, situation, expected over_admission, then semsim run arguments; clients=,
# limit=, timeout=, duration= before the call change 2, 1, 10s, 20s
situation() {
  local class=$1 version=$2 ini=$3 what=$4 want=$5; shift 5
  local name; name=$(echo "$class $what" | tr -c 'a-zA-Z0-9\n' '-' | tr -s '-')
  "$semsim" run --variant "script:$ini" --mode virtual --masters 5 --clients "${clients:-2}" --limit "${limit:-1}" \
    --timeout "${timeout:-10s}" --delay fixed:1ms --master-timeout 50ms --duration "${duration:-20s}" --seed 1 --no-charts --out "$out/$name" "$@" \
    >"$out/$name.log" 2>&1 || { echo "FAILED $class: $what: semsim run exited $?: $(tail -2 "$out/$name.log")"; failed=1; return; }
  local s="$out/$name/summary.csv" over lost stale met=yes
  over=$(col "$s" over_admission); lost=$(col "$s" lost_permits); stale=$(col "$s" max_stale)
  [ "$(col "$s" samples)" = 0 ] && stale=
  [ "$over" = "$want" ] || { met=NO; failed=1; echo "FAILED $class: $what: over_admission $over, expected $want"; }
  # No over-admission from a library that never granted is no finding (not exercised).
  [ "$(col "$s" exercised)" = yes ] || { met=NO; failed=1; echo "FAILED $class: $what: never exercised (granted $(col "$s" granted))"; }
  echo "$class,$version,\"$what\",$want,$over,$lost,$stale,$(col "$s" safety),$met" >>"$results"
  echo "$met  $class: $what: over_admission $over (expected $want), max_holders $(col "$s" max_holders)"
}
# The lease locks' rows: which of Redlock's assumptions each library's code keeps. None of these
# libraries has a timeout per master (masters.timeout = none in their INIs): a request to a master
# cut from its client goes once the partition heals, as over TCP. So in the first plans client 1's
# key reaches masters 4 and 5 at 100 ms, and a restart or a jump on one master leaves it four:
# no over-admission. (redis.io's Redlock gives up on them after a small timeout: semsim's
# `redlock` variant, with --master-timeout 50ms, over-admits there: docs/redlock.md.) Where the
# cut outlasts the rival's acquire, the restart over-admits for every one of them.
lock_rows() {  # class, version, INI, expected over_admission of a pause while the votes are in flight
  local class=$1 version=$2 ini=$3
  situation "$class" "$version" "$ini" "5 masters: one of the holder's 3 masters restarts without persistence (4 and 5 cut from it for 100 ms)" 0 --persistence none --actions-file "$restart"
  situation "$class" "$version" "$ini" "5 masters: the same restart, 4 and 5 cut from the holder for 7 s (past the rival's acquire)" 1 --persistence none --actions-file "$long_cut"
  situation "$class" "$version" "$ini" "5 masters: the same restart, kept down past the ttl" 0 --persistence none --actions-file "$delayed"
  situation "$class" "$version" "$ini" "5 masters: the same restart with aof-always" 0 --persistence aof-always --actions-file "$restart"
  situation "$class" "$version" "$ini" "5 masters: one of the holder's 3 masters' clock jumps 9.5 s (Kleppmann; 4 and 5 cut from it for 100 ms)" 0 --actions-file "$jump"
  situation "$class" "$version" "$ini" "5 masters: the same jump on 2 of the holder's 5 masters" 0 --actions-file "$minority"
  situation "$class" "$version" "$ini" "5 masters: a 9.9 s pause while the votes are in flight (ttl 10 s)" "$4" --actions-file "$in_flight"
  timeout=1s duration=5s situation "$class" "$version" "$ini" "5 masters: a 2 s pause inside the critical section (ttl 1 s)" 1 --actions-file "$gc"
}

case $library in
  redis-semaphore)
    dir="$cache/redis-semaphore"
    # No validity check: a lock granted after 9.9 s of a 10 s ttl is held for its full hold.
    lock_rows "redis-semaphore RedlockMutex" 5.8.0 "$dir/redis-semaphore-redlock-mutex.ini" 1
    lock_rows "redis-semaphore RedlockSemaphore" 5.8.0 "$dir/redis-semaphore-redlock-semaphore.ini" 1
    # A semaphore per master, votes counted per master: 3 holders of 2 with no fault at all.
    clients=3 limit=2 duration=5s situation "redis-semaphore RedlockSemaphore" 5.8.0 "$dir/redis-semaphore-redlock-semaphore.ini" \
      "5 masters, limit 2, no fault: three clients reach the masters in different orders" 1 --links-file "$out/links.csv" --actions-file "$votes"
    ;;
  redlock)  # 4.2.0 waits for every vote and checks the validity: the pause in flight is refused
    lock_rows "redlock" 4.2.0 "$cache/redlock/redlock-masters.ini" 0 ;;
  redlock-5)  # decides at a quorum of votes and never compares the validity with the time
    lock_rows "redlock" 5.0.0-beta.2 "$cache/redlock-5/redlock-5.ini" 1
    # Its own retries keep their votes (masters.release_on_refusal = last): three clients that split
    # the votes block each other, and themselves, until the keys expire; liveness reads valid, only
    # just (the bound is the ttl + 1 s), and the summary says NEAR THE BOUND.
    split="$here/../../scenarios/conformance/masters-split-votes"
    what="5 masters, 3 clients split the votes, its own retries (100, 100-300 ms apart): no grant until the keys expire"
    clients=3 duration=15s situation "redlock" 5.0.0-beta.2 "$cache/redlock-5/redlock-5.ini" "$what" 0 \
      --retries 100 --retry-delay uniform:100ms..300ms --links-file "$split.links.csv" --actions-file "$split.actions.csv"
    name=$(echo "redlock $what" | tr -c 'a-zA-Z0-9\n' '-' | tr -s '-')
    longest=$(col "$out/$name/summary.csv" longest_no_grant_ms)
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 10000 else 1)" "$longest" \
      && grep -q 'NEAR THE BOUND' "$out/$name.log" && [ "$(col "$out/$name/summary.csv" liveness)" = valid ] \
      || { echo "FAILED redlock 5: split votes: longest no grant $longest ms, expected >= 10000 (the ttl), liveness valid, NEAR THE BOUND"; failed=1; }
    echo "redlock 5: split votes: no grant for $longest ms (ttl 10 s), liveness $(col "$out/$name/summary.csv" liveness), near the bound"
    ;;
  *) echo "unknown library $library"; exit 2 ;;
esac
exit $failed
