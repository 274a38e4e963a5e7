#!/usr/bin/env bash
# timeline.html at the sizes that hid things, in a real browser (Debian's headless chromium; ctest
# -L browser): Kleppmann's clock jump over 5 masters (a lane per master, its jump, the cut, each
# grant's votes) and a 1,000-client run (every witness of the first over-admission on the page,
# every episode reachable, a redraw under 200 ms), the masters' clocks (skew, drift) on their lanes,
# and a 2,600-client run (the witness's clients beyond the first 2,000 rows on the page).
# tests/browser/check_masters_and_scale.py says what is checked.
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
# Masters' clocks: master 2 runs 5 ms ahead and 200 ppm fast, master 3 8 ms behind; 1 on true time.
printf 'master,skew,drift_ppm\n2,5ms,200\n3,-8ms,0\n' >"$tmp/masters.csv"
"$semsim" run --variant redlock --masters 3 --masters-file "$tmp/masters.csv" --clients 3 --limit 1 --timeout 1s \
  --duration 2s --seed 1 --no-charts --out "$tmp/mc" >"$tmp/mc.log" 2>&1 || { cat "$tmp/mc.log"; exit 1; }
# Beyond 2,000 clients: the witness of the first over-admission names clients past the first 2,000 rows.
"$semsim" run --variant basic --clients 2600 --limit 50 --skew uniform:-10ms..10ms --duration 1s --seed 1 --no-charts \
  --out "$tmp/big" >"$tmp/big.log" 2>&1 || { cat "$tmp/big.log"; exit 1; }
big_witness=$(sed -n '/first over-admission/,/^[A-Z]/p' "$tmp/big.log" | sed -n 's/^ *client \([0-9]*\) (clock.*/\1/p' | paste -sd,)
[ -n "$big_witness" ] || { echo "FAIL  the 2,600-client run printed no witness"; cat "$tmp/big.log"; exit 1; }
python3 "$src/tests/browser/check_masters_and_scale.py" "$tmp/rl/redlock-clock-jump/redlock/timeline.html" \
  "$tmp/k/timeline.html" "$witness" "$tmp/mc/timeline.html" "$tmp/big/timeline.html" "$big_witness"
