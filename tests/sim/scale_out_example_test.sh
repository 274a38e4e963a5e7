#!/usr/bin/env bash
# examples/scale-out/xargs-shards.sh as a user runs it (here, the shards as local processes):
# a search's shards merge to its violation (exit 1) and a sweep's to report.html (exit 0); the
# workflow and the Kubernetes manifests parse as YAML (when python3-yaml is there to say so).
# Usage: scale_out_example_test.sh PATH/TO/semsim
set -u
semsim=${1:?usage: $0 PATH/TO/semsim}
here=$(cd "$(dirname "$0")" && pwd)
examples="$here/../../examples/scale-out"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

SEMSIM="$semsim" SHARDS=3 "$examples/xargs-shards.sh" "$out/search" check --variant basic --cases 60 --seed 5 --jobs 1 \
  >"$out/search.log" 2>&1
code=$?
[ $code = 1 ] || { fail "a search's shards: exit $code, expected 1 (a violation)"; cat "$out/search.log"; }
[ -f "$out/search/merged/counterexample.ini" ] || fail "no merged counterexample.ini"
[ "$(ls "$out/search/shards")" = "$(printf 'shard-1\nshard-2\nshard-3')" ] || fail "shards: $(ls "$out/search/shards")"

SEMSIM="$semsim" SHARDS=2 "$examples/xargs-shards.sh" "$out/sweep" compare --variants basic,lua --skews 0,5ms --seeds 2 \
  --duration 300ms --jobs 1 --no-charts >"$out/sweep.log" 2>&1
code=$?
[ $code = 0 ] || { fail "a sweep's shards: exit $code, expected 0"; cat "$out/sweep.log"; }
[ -f "$out/sweep/merged/report.html" ] || fail "no merged report.html"
grep -q "merged 8 runs from 2 shards" "$out/sweep.log" || fail "the sweep's 8 runs were not merged: $(tail -3 "$out/sweep.log")"

if python3 -c 'import yaml' 2>/dev/null; then
  for f in "$examples"/*.yml "$examples"/*.yaml; do
    python3 -c 'import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))' "$f" || fail "$f: not YAML"
  done
fi
[ $failed = 0 ] && echo "ok: the xargs recipe merges a search and a sweep; the manifests parse"
exit $failed
