#!/usr/bin/env bash
# The driver kits and reference drivers as installed (ctest -L conformance, -L drivers): `cmake
# --install` into a fresh prefix puts them in share/semsim/drivers/{node,python,reference}, and the
# installed semsim runs installed reference drivers from another directory: redis-py's Lock warped,
# npm redlock 4.2.0 over 3 masters with NODE_PATH at an npm folder (each exercised, its ready line
# naming its library). Exit 77 (skipped) without Debian's python3-redis, node/npm or the registry.
#   installed_drivers_test.sh BUILD_DIR CACHE
set -uo pipefail
build=$(readlink -f "${1:?usage: $0 BUILD_DIR CACHE}"); cache=${2:?}
here=$(dirname "$(readlink -f "$0")")
. "$here/npm_library.sh"
/usr/bin/python3 -c 'import redis' 2>/dev/null || { echo "skipped: Debian's python3-redis is not installed"; exit 77; }
npm_library redlock 4.2.0 node-redlock
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/p" >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -2 "$tmp/install.log")"
shipped=$tmp/p/share/semsim/drivers
for f in node/semsim-driver.js python/semsim_driver.py reference/redis-lock.js reference/redis-py-lock.py \
         reference/redis-semaphore.js reference/redlock-4.js reference/redlock-5.js; do
  [ -f "$shipped/$f" ] || fail "share/semsim/drivers/$f is not installed"
done
mkdir "$tmp/elsewhere"; cd "$tmp/elsewhere"
run() {  # name, library@version, variant, then semsim run arguments
  local name=$1 named=$2 variant=$3; shift 3
  "$tmp/p/bin/semsim" run --variant "$variant | tee $tmp/$name.lines" --clients 2 --limit 1 --timeout 500ms \
    --duration 2s --no-charts --out "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1 || fail "$name: exit $?: $(tail -2 "$tmp/$name.log")"
  python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[-1]; sys.exit(r['exercised'] != 'yes' or int(r['granted']) < 1)" \
    "$tmp/$name/summary.csv" || fail "$name: not exercised"
  grep -q " driver ok - ready library=$named\$" "$tmp/$name.lines" || fail "$name: no ready line naming $named"
  echo "ok  installed $name: exercised, ready library=$named"
}
run redis-py "redis-py@$(/usr/bin/python3 -c 'import redis; print(redis.__version__)')" \
  "driver:/usr/bin/python3 $shipped/reference/redis-py-lock.py" --mode virtual
run redlock-4 redlock@4.2.0 "driver:NODE_PATH=$node_dir/node_modules node $shipped/reference/redlock-4.js" --masters 3
