#!/usr/bin/env bash
# check --server-faults with parallel jobs, again and again: restarts and failovers while another
# job runs on the other core. It crashed (exit 139) when a restart that did not come back in time
# left its session without a link and the cleanup dereferenced it. Every search must end with a
# verdict (0 or 1); bounded: SEARCHES searches of 5 cases (default 4, some 10-40 s in all).
#   check_server_faults_stress.sh PATH/TO/semsim [SEARCHES]
set -u
semsim=${1:?usage: $0 PATH/TO/semsim [SEARCHES]}
searches=${2:-4}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for seed in $(seq "$searches"); do
  timeout 300 "$semsim" check --variant lua --cases 5 --seed "$seed" --server-faults --jobs 2 --out "$out/$seed" \
    >"$out/$seed.log" 2>&1
  code=$?
  case $code in
    0|1) ;;
    *) echo "FAIL: check --server-faults --jobs 2 --seed $seed: exit $code"; tail -5 "$out/$seed.log"; exit 1 ;;
  esac
done
echo "$searches searches with server faults on two jobs, each with a verdict"
