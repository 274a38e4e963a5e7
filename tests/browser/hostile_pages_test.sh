#!/usr/bin/env bash
# Markup in a history, a file name and a folder name stays text on timeline.html and report.html,
# in a real browser (Debian's headless chromium; ctest -L browser): a run's history rewritten with
# markup in every text field goes to `semsim analyze` (the mode, one of two words, is refused); a sweep of a script variant whose file name
# is markup, into a folder whose name is markup, makes report.html. tests/browser/hostile_pages.py
# says what is checked.
#   hostile_pages_test.sh SEMSIM SOURCE_DIR
set -euo pipefail
semsim=$1 src=$2
command -v chromium >/dev/null || { echo "chromium not installed (./bootstrap test installs it): skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pages=$src/tests/browser/hostile_pages.py

# A run with a row of every kind the timeline draws text from: Redis paused (its detail is drawn),
# a client paused, samples.
printf 'at,client,action,arg\n100ms,0,redis_pause,20ms\n150ms,2,pause,30ms\n' >"$tmp/actions.csv"
"$semsim" run --variant fair --clients 3 --limit 1 --duration 400ms --actions-file "$tmp/actions.csv" --no-charts \
  --out "$tmp/plain" >"$tmp/plain.log" 2>&1 || { cat "$tmp/plain.log"; exit 1; }
# A mode that is not one of the command line's two is refused (exit 2), no page written.
python3 "$pages" history "$tmp/plain/history.csv" "$tmp/hostile-mode.csv" mode
code=0; "$semsim" analyze "$tmp/hostile-mode.csv" --out "$tmp/refused" >"$tmp/refused.log" 2>&1 || code=$?
[ "$code" = 2 ] && grep -q 'is not a time mode' "$tmp/refused.log" && [ ! -e "$tmp/refused/timeline.html" ] \
  || { echo "FAIL  a run row's mode of markup: exit $code, expected 2 and no page"; cat "$tmp/refused.log"; exit 1; }
echo "ok    a run row's mode of markup is refused (exit 2), no page"
python3 "$pages" history "$tmp/plain/history.csv" "$tmp/hostile.csv"
"$semsim" analyze "$tmp/hostile.csv" --out "$tmp/analyzed" >"$tmp/analyze.log" 2>&1 || { cat "$tmp/analyze.log"; exit 1; }

name=$(python3 "$pages" name)
mkdir -p "$tmp/variant"
cp "$src"/examples/lua-script/*.lua "$tmp/variant/"
cp "$src/examples/lua-script/semaphore.ini" "$tmp/variant/$name.ini"
"$semsim" compare --variants "basic,script:$tmp/variant/$name.ini" --skews 0,5ms,20ms --seeds 1 --clients 6 --limit 2 \
  --duration 400ms --delay uniform:0ms..1ms --jobs 2 --out "$tmp/$name" >"$tmp/compare.log" 2>&1 || { cat "$tmp/compare.log"; exit 1; }

# Over 5 masters (a restart of master 3, client 1 cut from 4 and 5): the lanes from hostile rows.
(cd "$src" && "$semsim" scenario scenarios/redlock-restart-delayed.ini --out "$tmp/rl") >"$tmp/rl.log" 2>&1 || { cat "$tmp/rl.log"; exit 1; }
python3 "$pages" history "$(find "$tmp/rl" -name history.csv | head -1)" "$tmp/hostile-masters.csv"
"$semsim" analyze "$tmp/hostile-masters.csv" --out "$tmp/masters" >"$tmp/masters.log" 2>&1 || { cat "$tmp/masters.log"; exit 1; }

python3 "$pages" check "$tmp/analyzed/timeline.html" "$tmp/$name/report.html" "$tmp/masters/timeline.html"
