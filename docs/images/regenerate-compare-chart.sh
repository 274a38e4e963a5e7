#!/usr/bin/env bash
# Redraws the README's comparison chart (docs/images/compare_over_admission.png) from a real
# sweep; nothing in it is edited by hand. Run from the project root after building:
#   docs/images/regenerate-compare-chart.sh [build/semsim]
set -euo pipefail
semsim=${1:-build/semsim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$semsim" compare --variants basic,fair,ttl-key,lua --skews 0,1ms,5ms,20ms --delay uniform:0ms..1ms \
  --seeds 10 --clients 20 --limit 3 --duration 5s --seed 1 --out "$out" >/dev/null
cp "$out/compare_over_admission.png" "$(dirname "$0")/compare_over_admission.png"
echo "docs/images/compare_over_admission.png redrawn (report: rerun the command above with --out DIR)"
