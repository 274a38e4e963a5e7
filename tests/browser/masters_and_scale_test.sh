#!/usr/bin/env bash
# timeline.html at the sizes that hid things, in a real browser (Debian's headless chromium; ctest
# -L browser): Kleppmann's clock jump over 5 masters (a lane per master, its jump, the cut, each
# grant's votes) and a 1,000-client run (every witness of the first over-admission on the page,
# every episode reachable, a redraw under 200 ms). tests/browser/check_masters_and_scale.py says
# what is checked.
#   masters_and_scale_test.sh SEMSIM SOURCE_DIR
set -euo pipefail
semsim=$1 src=$2
command -v chromium >/dev/null || { echo "chromium not installed (./bootstrap test installs it): skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$src" && "$semsim" scenario scenarios/redlock-clock-jump.ini --out "$tmp/rl") >"$tmp/rl.log" 2>&1 || { cat "$tmp/rl.log"; exit 1; }
"$semsim" run --variant basic --clients 1000 --limit 50 --skew uniform:-10ms..10ms --duration 2s --seed 1 --no-charts \
  --out "$tmp/k" >"$tmp/k.log" 2>&1 || { cat "$tmp/k.log"; exit 1; }
# The first over-admission's witness, as the run prints it: "client C (clock ...) holds ...".
witness=$(sed -n '/first over-admission/,/^[A-Z]/p' "$tmp/k.log" | sed -n 's/^ *client \([0-9]*\) (clock.*/\1/p' | paste -sd,)
[ -n "$witness" ] || { echo "FAIL  the 1,000-client run printed no witness"; cat "$tmp/k.log"; exit 1; }
python3 "$src/tests/browser/check_masters_and_scale.py" "$tmp/rl/redlock-clock-jump/redlock/timeline.html" \
  "$tmp/k/timeline.html" "$witness"
