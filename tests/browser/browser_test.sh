#!/usr/bin/env bash
# report.html and timeline.html in a real browser (Debian's headless chromium; ctest -L browser):
# a small sweep, the 10 ms steal and a 50-client run, each page opened and checked as a reader
# would use it (tests/browser/check_pages.py). Screenshots stay in SHOTS_DIR.
#   browser_test.sh SEMSIM SOURCE_DIR SHOTS_DIR
set -euo pipefail
semsim=$1 src=$2 shots=$3
command -v chromium >/dev/null || { echo "chromium not installed (./bootstrap test installs it): skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$shots"
"$semsim" compare --variants basic,fair,lua --skews 0,1ms,5ms,20ms --seeds 2 --clients 6 --limit 2 --duration 400ms \
  --delay uniform:0ms..1ms --jobs 2 --out "$tmp/cmp" >"$tmp/cmp.log" 2>&1 || { cat "$tmp/cmp.log"; exit 1; }
"$semsim" run --variant basic --clients 2 --limit 1 --duration 2s --clients-file "$src/scenarios/steal-10ms.clients.csv" \
  --actions-file "$src/scenarios/steal-10ms.actions.csv" --no-charts --out "$tmp/steal" >"$tmp/steal.log" 2>&1 \
  || { cat "$tmp/steal.log"; exit 1; }
"$semsim" run --variant basic --clients 50 --limit 5 --skew uniform:-20ms..20ms --delay uniform:0ms..2ms --hold uniform:5ms..40ms \
  --pause-rate 0.2 --pause-length 80ms --duration 3s --no-charts --out "$tmp/dense" >"$tmp/dense.log" 2>&1 \
  || { cat "$tmp/dense.log"; exit 1; }
python3 "$src/tests/browser/check_pages.py" "$shots" "$tmp/cmp/report.html" basic,fair,lua "$tmp/steal/timeline.html" \
  "$tmp/dense/timeline.html"
