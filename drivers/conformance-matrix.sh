#!/usr/bin/env bash
# The published conformance matrix of the reference drivers, regenerated (docs/conformance.md):
#   drivers/conformance-matrix.sh build/semsim [OUT]      (from the project root)
# Installs each pinned npm library in a folder of its own under OUT/npm (once), runs the card on
# the locks (limit 1), the Redlock locks (limit 1, 5 masters) and the semaphores (limit 2; the
# Redlock one over 5 masters too), and
# writes docs/conformance-matrix.md: one table, situations x libraries, dated, with semsim's version.
# Each card's conformance.html (with every cell's timeline) stays in OUT.
set -euo pipefail
semsim=$(readlink -f "${1:?usage: $0 PATH/TO/semsim [OUT]}")
out=$(mkdir -p "${2:-semsim-out/conformance-matrix}" && readlink -f "${2:-semsim-out/conformance-matrix}")
root=$(dirname "$(dirname "$(readlink -f "$0")")")
ref=$root/drivers/reference
command -v node >/dev/null && command -v npm >/dev/null || { echo "node and npm are needed (./bootstrap installs them)"; exit 2; }
/usr/bin/python3 -c 'import redis' 2>/dev/null || { echo "Debian's python3-redis is needed (./bootstrap installs it)"; exit 2; }

npm_in() {  # folder, packages...: installed once; prints the folder's node_modules
  local dir=$out/npm/$1; shift
  if [ ! -d "$dir/node_modules" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --silent --no-audit --no-fund "$@" >"$dir.log" 2>&1 \
      || { echo "npm install $* failed: $(tail -1 "$dir.log")" >&2; exit 2; }
  fi
  echo "$dir/node_modules"
}
node_driver() {  # npm folder, script and its arguments
  local modules=$1; shift
  echo "driver:NODE_PATH=$modules node $ref/$*"
}
lock=$(npm_in redis-lock redis-lock@1.0.0 redis@4)
semaphore=$(npm_in redis-semaphore redis-semaphore@5.8.0 ioredis@5.9.3)
redlock4=$(npm_in redlock-4 redlock@4.2.0 ioredis@5.9.3)
redlock5=$(npm_in redlock-5 redlock@5.0.0-beta.2 ioredis@5.9.3)
sesame=$(npm_in sesame-redlock @sesamecare-oss/redlock@1.4.0 ioredis@5.9.3)

card() {  # name, then conformance's arguments; a defect (1) is a finding here, not a failure
  local name=$1; shift
  echo "card $name ..."
  "$semsim" conformance --out "$out/$name" "$@" >"$out/$name.log" 2>&1 && code=0 || code=$?
  [ "$code" -le 2 ] || { echo "card $name: exit $code: $(tail -2 "$out/$name.log")"; exit 1; }
  [ -s "$out/$name/conformance.csv" ] || { echo "card $name: no conformance.csv: $(tail -2 "$out/$name.log")"; exit 1; }
}
card locks --limit 1 \
  --variant "driver:/usr/bin/python3 $ref/redis-py-lock.py" \
  --variant "$(node_driver "$lock" redis-lock.js)" \
  --variant "$(node_driver "$semaphore" redis-semaphore.js mutex)"
card redlocks --limit 1 --masters 5 \
  --variant "$(node_driver "$redlock4" redlock-4.js)" \
  --variant "$(node_driver "$redlock5" redlock-5.js)" \
  --variant "$(node_driver "$sesame" redlock-5.js @sesamecare-oss/redlock)" \
  --variant "$(node_driver "$semaphore" redis-semaphore.js redlock-mutex)"
card semaphores --limit 2 \
  --variant "$(node_driver "$semaphore" redis-semaphore.js semaphore)"
card redlock-semaphores --limit 2 --masters 5 \
  --variant "$(node_driver "$semaphore" redis-semaphore.js redlock-semaphore)"

python3 - "$out" "$root/docs/conformance-matrix.md" "$("$semsim" --version)" <<'PY'
import csv, datetime, sys
out, target, version = sys.argv[1:4]
cards = [("locks", "limit 1, one Redis"), ("redlocks", "limit 1, one Redis and 5 masters"),
         ("semaphores", "limit 2, one Redis"), ("redlock-semaphores", "limit 2, one Redis and 5 masters")]
columns, rows, cells, mode = [], [], {}, {}
for card, how in cards:
    for r in csv.DictReader(open(f"{out}/{card}/conformance.csv")):
        col = f"{r['library']} ({r['folder']})"
        if col not in columns: columns.append(col); mode[col] = f"{how}, {r['mode']}"
        if r["situation"] not in rows: rows.append(r["situation"])
        cells[(r["situation"], col)] = r["verdict"]
mark = {"defect": "**defect**", "holds": "holds", "lease limit": "lease limit", "not staged": "not staged", "n/a": "n/a"}
lines = ["# The conformance matrix of the reference drivers", "",
         f"Generated on {datetime.date.today().isoformat()} by `drivers/conformance-matrix.sh` with {version}, on the",
         "reference drivers of `drivers/reference/` ([conformance.md](conformance.md) says what each verdict means;",
         "the script's output folder holds each card's conformance.html, every cell linked to its timeline).", "",
         "| library | runs |", "|---|---|"]
lines += [f"| {c} | {mode[c]} |" for c in columns]
lines += ["", "| situation | " + " | ".join(f"{i + 1}" for i in range(len(columns))) + " |",
          "|---|" + "---|" * len(columns)]
for s in rows:
    lines.append(f"| `{s}` | " + " | ".join(mark.get(cells.get((s, c), ""), "—") for c in columns) + " |")
lines += ["", "Columns: " + "; ".join(f"{i + 1} = {c}" for i, c in enumerate(columns)) + ".", ""]
open(target, "w").write("\n".join(lines))
print(f"{target}: {len(rows)} situations x {len(columns)} libraries")
PY
