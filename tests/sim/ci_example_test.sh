#!/usr/bin/env bash
# examples/ci/semsim-ci.sh maps semsim's verdicts to the job's exit code: the gate passes on the
# shipped scripts, the planted bug is caught (--self-test), and the search tells a safety
# violation (1) from a liveness violation alone (3, or a warning with SEMSIM_LIVENESS=warn).
# Usage: ci_example_test.sh PATH/TO/semsim
set -u
semsim=${1:?usage: $0 PATH/TO/semsim}
here=$(cd "$(dirname "$0")" && pwd)
ci="$here/../../examples/ci/semsim-ci.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
expect() {  # expect CODE DESCRIPTION -- ENV... ARGS...
  local want=$1 what=$2; shift 3
  env SEMSIM="$semsim" OUT="$out/$RANDOM" SEMSIM_CASES=40 "$@" >"$out/log" 2>&1
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL: $what: exit $got, expected $want"; cat "$out/log"; failed=1
  else
    echo "ok: $what (exit $got)"
  fi
}
expect 0 "the gate and its self-test pass on the shipped scripts" -- "$ci" --self-test
expect 1 "the planted bug fails the gate" -- "$ci" "$here/../../examples/ci/broken-must-fail.ini"
expect 0 "a search of the shipped scripts finds nothing" -- "$ci" --search "script:$here/../../examples/lua-script/semaphore.ini"
expect 3 "a liveness violation alone fails the job with 3" -- "$ci" --search fair-locked-as-published
expect 0 "... or only warns when asked to" -- SEMSIM_LIVENESS=warn "$ci" --search fair-locked-as-published
expect 1 "a safety violation fails the job with 1" -- "$ci" --search basic
exit $failed
