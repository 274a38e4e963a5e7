#!/usr/bin/env bash
# A CI job for a Redis semaphore written as Lua scripts: run semsim's scenarios against the
# script variant and fail the build when an expectation fails (over-admission above all).
#
#   examples/ci/semsim-ci.sh [--self-test] [--search VARIANT] [SCENARIO.ini...]
#
# SCENARIO defaults to examples/ci/semaphore-safety.ini. --self-test also runs
# broken-must-fail.ini (the planted `<=` bug) and fails the job if that one PASSES: a gate that
# cannot fail proves nothing. --search VARIANT (e.g. script:examples/lua-script/semaphore.ini)
# also runs `semsim check`: a property-based search of SEMSIM_CASES generated cases (default 200)
# that shrinks any violation to a minimal counterexample.ini.
# Environment: SEMSIM   the semsim binary (default: semsim on PATH, else build/semsim)
#              OUT      where run files go, to keep as CI artifacts (default: semsim-ci-out)
#              SEMSIM_REDIS  a Redis URL to test against (default: semsim's embedded server)
#              SEMSIM_CASES  cases for --search (default 200)
#              SEMSIM_LIVENESS  fail (default) or warn: what a liveness violation alone does to the
#                            job (semsim check exits 3 for it, 1 for a safety violation)
# Exit: 0 all expectations met and no violation found; 1 an expectation failed or the search found
# a safety violation; 3 the search found a liveness violation alone (SEMSIM_LIVENESS=fail); 2 bad
# input or setup (a script that does not compile, a typo in an INI file: semsim names FILE:LINE).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
semsim=${SEMSIM:-$(command -v semsim || echo "$repo/build/semsim")}
out=${OUT:-semsim-ci-out}
redis_args=()
[[ -n ${SEMSIM_REDIS:-} ]] && redis_args=(--redis "$SEMSIM_REDIS")

self_test=0
search=""
scenarios=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --self-test) self_test=1 ;;
    --search) search=${2:?--search needs a variant}; shift ;;
    *) scenarios+=("$1") ;;
  esac
  shift
done
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=("$here/semaphore-safety.ini")

if [[ ! -x $semsim ]]; then
  echo "semsim-ci: no semsim binary at '$semsim' (set SEMSIM=/path/to/semsim)" >&2
  exit 2
fi

# The gate itself. semsim prints each expectation as ok/FAILED with the observed value; the
# histories under $out name the witness of any over-admission.
"$semsim" scenario --out "$out/gate" "${redis_args[@]}" "${scenarios[@]}"
status=$?
case $status in
  0) echo "semsim-ci: all expectations met" ;;
  1) echo "semsim-ci: an expectation FAILED; history.csv and summary.csv are under $out/gate" >&2 ;;
  *) echo "semsim-ci: bad input or setup error (exit $status): see the FILE:LINE above" >&2 ;;
esac
[[ $status -ne 0 ]] && exit "$status"

if [[ $self_test -eq 1 ]]; then
  "$semsim" scenario --out "$out/self-test" "${redis_args[@]}" "$here/broken-must-fail.ini"
  negative=$?
  if [[ $negative -ne 1 ]]; then
    echo "semsim-ci: self-test: the planted bug was NOT caught (exit $negative, expected 1)" >&2
    exit 1
  fi
  echo "semsim-ci: self-test: the planted bug was caught, as it must be"
fi

if [[ -n $search ]]; then
  # The search judges safety and liveness apart: exit 1 is a safety violation (over-admission,
  # lease honesty), 3 a liveness violation alone (a free permit never granted). Either way the
  # shrunk case is written to counterexample.ini, which `semsim scenario` replays.
  "$semsim" check --variant "$search" --cases "${SEMSIM_CASES:-200}" --out "$out/search" "${redis_args[@]}"
  status=$?
  case $status in
    0) echo "semsim-ci: search: no violation in ${SEMSIM_CASES:-200} cases" ;;
    1) echo "semsim-ci: search: a SAFETY violation; replay $out/search/counterexample.ini" >&2; exit 1 ;;
    3) if [[ ${SEMSIM_LIVENESS:-fail} == warn ]]; then
         echo "semsim-ci: search: a liveness violation alone (warning only); replay $out/search/counterexample.ini" >&2
       else
         echo "semsim-ci: search: a LIVENESS violation (safety held); replay $out/search/counterexample.ini" >&2
         exit 3
       fi ;;
    *) echo "semsim-ci: search: bad input or setup error (exit $status)" >&2; exit "$status" ;;
  esac
fi
exit 0
