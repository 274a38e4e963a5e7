#!/usr/bin/env bash
# What the terminal shows: the witness with each holder's clock; a warning where every client has
# the same clock offset (no steal possible) and why skew_success_correlation is then undefined;
# the run's lines in order in a CI log (stdout and stderr in one file); a paced run's progress
# line and check's ETA on a terminal (a pty from script(1)); check naming its counterexample's
# path and the preconditions rather than printing the file.
#   terminal_output_test.sh PATH/TO/semsim SOURCE_DIR
set -u
semsim=${1:?usage: $0 PATH/TO/semsim SOURCE_DIR} src=${2:?}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

"$semsim" run --variant basic --clients 2 --limit 1 --duration 2s --clients-file "$src/scenarios/steal-10ms.clients.csv" \
  --actions-file "$src/scenarios/steal-10ms.actions.csv" --no-charts --out "$out/steal" >"$out/steal.log" 2>&1
grep -qE '^    client 2 \(clock -10\.000 ms\) holds [0-9a-f-]+ since 5\.[0-9]{3} ms$' "$out/steal.log" \
  && grep -qE '^    client 1 \(clock \+0\.000 ms\) holds ' "$out/steal.log" \
  && ok "the witness shows each holder's clock" || { fail "witness without clocks"; grep -A3 witness "$out/steal.log"; }

"$semsim" run --variant basic --clients 5 --skew 10ms --duration 500ms --no-charts --out "$out/same" >"$out/same.log" 2>&1
grep -qE '^warning: every client.s clock is offset by the same 10\.000 ms \(--skew fixed:10ms\)' "$out/same.log" \
  && ok "--skew 10ms warns that no steal is possible" || { fail "no warning for one offset for all"; cat "$out/same.log"; }
grep -qE "skew_success_correlation +n/a +\(undefined: every client's clock had the same offset \(10\.000 ms" "$out/same.log" \
  && ok "n/a says why" || { fail "n/a unexplained"; grep skew_success "$out/same.log"; }
"$semsim" run --variant basic --clients 5 --skew uniform:-10ms..10ms --duration 500ms --no-charts --out "$out/spread" >"$out/spread.log" 2>&1
grep -q '^warning:' "$out/spread.log" && fail "a spread of offsets warned: $(grep '^warning:' "$out/spread.log")" || ok "a spread does not warn"

# In a CI log (one file for both streams) the header, the warning, the summary and what follows
# come in the order they were printed; here a paced run cut short by SIGINT after 1.5 s.
"$semsim" run --variant basic --clients 5 --skew 10ms --mode paced --duration 20s --no-charts --out "$out/ci" >"$out/ci.log" 2>&1 &
pid=$!; sleep 1.5; kill -INT $pid; wait $pid
order=$(sed -nE 's/^semsim [0-9].*/header/p; s/^warning: every.*/warning/p; s/^run +basic.*/summary/p; s/^semsim run: stopped early.*/stop/p' \
  "$out/ci.log" | tr '\n' ' ')
[ "$order" = "header warning summary stop " ] && ok "header, warning, summary, then the stop, in order" \
  || { fail "CI log out of order: $order"; cat "$out/ci.log"; }

# A paced run's progress on a terminal: elapsed of --duration and grants, rewritten in place.
script -qfec "'$semsim' run --variant basic --clients 3 --limit 1 --mode paced --duration 1500ms --no-charts --out '$out/paced'" \
  /dev/null >"$out/paced.tty" 2>&1
grep -aqE '\[semsim\] [0-9.]+ s of 1\.500 s \([0-9]+%\)  [0-9]+ grants  [0-9]+ events' "$out/paced.tty" \
  && ok "a paced run shows its progress on a terminal" || { fail "no progress line"; tr '\r' '\n' <"$out/paced.tty" | head; }
grep -aq $'\r\|\033\\[K' "$out/steal.log" && fail "a terminal's progress line written to a file" || ok "no terminal progress line when not a terminal"

# check: an ETA while it searches, then the counterexample's path and the preconditions.
script -qfec "'$semsim' check --variant lua --cases 600 --jobs 1 --out '$out/eta'" /dev/null >"$out/eta.tty" 2>&1
grep -aqE 'semsim check: case [0-9]+/600, [0-9.]+ cases/s, about [0-9]+ s left' "$out/eta.tty" \
  && ok "check shows an ETA" || { fail "no ETA"; tr '\r' '\n' <"$out/eta.tty" | tail -5; }
"$semsim" check --variant basic --cases 300 --seed 5 --jobs 1 --out "$out/cx" >"$out/cx.log" 2>&1
grep -qE "^  counterexample: +$out/cx/counterexample.ini " "$out/cx.log" && ! grep -q '^\[expect\]' "$out/cx.log" \
  && ok "check names the counterexample's path, not its lines" || { fail "counterexample printed"; cat "$out/cx.log"; }
# basic is promised nothing: never "kept" (the source articles do not claim it safe).
grep -qE '^  preconditions: +none promised \(' "$out/cx.log" && grep -qE '^# preconditions: none promised \(' "$out/cx/counterexample.ini" \
  && ok "and says basic is promised nothing" || { fail "no 'none promised' preconditions line"; cat "$out/cx.log"; }
"$semsim" check --variant fair --no-preconditions --cases 300 --seed 5 --jobs 1 --out "$out/np" >"$out/np.log" 2>&1
grep -qE '^  preconditions: +broken: .+ \(outside the source articles. promise' "$out/np.log" \
  && ok "outside the preconditions, it names the one broken" || { fail "broken precondition not named"; grep -E 'VIOL|precond' "$out/np.log"; }
exit $failed
