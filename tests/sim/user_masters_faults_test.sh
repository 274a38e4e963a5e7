#!/usr/bin/env bash
# A Redlock run over masters of the user's (semsim starts none of them) ends with an error, not a
# crash, when a master goes away under it (SHUTDOWN), stops answering (DEBUG SLEEP past
# --command-timeout), or when semsim itself is interrupted (SIGINT, SIGTERM: exit 130); and what it
# recorded up to then is a history `analyze` reads. Each happened with a reply callback writing
# into a frame that had returned (SIGSEGV).
#   user_masters_faults_test.sh PATH/TO/semsim
set -u
semsim=${1:?usage: $0 PATH/TO/semsim}
dir=$(mktemp -d); servers=()
trap 'for p in "${servers[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$dir"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
serve() {
  redis-server --port 0 --unixsocket "$1" --save '' --appendonly no --dir "$dir" --enable-debug-command yes \
    >/dev/null 2>&1 & servers+=($!)
  for _ in $(seq 100); do [ -S "$1" ] && return 0; sleep 0.05; done
  echo "could not start redis-server at $1"; exit 1
}
# name, then what to do to it 1.5 s into the run
trial() {
  local name=$1 action=$2 masters=()
  for m in 1 2 3; do serve "$dir/$name$m.sock"; masters+=(--redis "unix://$dir/$name$m.sock"); done
  "$semsim" run --variant redlock --masters 3 "${masters[@]}" --clients 10 --duration 6s --command-timeout 1s \
    --no-charts --out "$dir/$name" >"$dir/$name.log" 2>&1 & local run=$!
  sleep 1.5
  case $action in
    shutdown) redis-cli -s "$dir/${name}1.sock" SHUTDOWN NOSAVE >/dev/null 2>&1 ;;
    sleep) redis-cli -s "$dir/${name}2.sock" DEBUG SLEEP 3 >/dev/null 2>&1 & ;;
    SIGINT|SIGTERM) kill -s "$action" "$run" ;;
  esac
  wait "$run"; local code=$?
  case $action in
    SIGINT|SIGTERM) [ "$code" = 130 ] || fail "$name: exit $code, expected 130 (interrupted) ($(tail -1 "$dir/$name.log"))" ;;
    *) [ "$code" -lt 128 ] || fail "$name: exit $code, a signal ($(tail -1 "$dir/$name.log"))"
       [ "$code" != 0 ] || [ "$action" = sleep ] || fail "$name: exit 0 after a master went away" ;;
  esac
  "$semsim" analyze "$dir/$name/history.csv" --no-charts --out "$dir/$name-analyzed" >"$dir/$name-analyze.log" 2>&1 \
    || fail "$name: the history left is not analyzable: $(tail -1 "$dir/$name-analyze.log")"
}
for round in 1 2; do
  trial "shut$round" shutdown
  trial "sleep$round" sleep
  trial "int$round" SIGINT
  trial "term$round" SIGTERM
done
[ $failed = 0 ] && echo "user masters' faults: errors and analyzable histories, no signal (8 runs)"
exit $failed
