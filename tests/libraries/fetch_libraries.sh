#!/usr/bin/env bash
# Fetches the pinned published packages with `npm pack` into CACHE (once) and extracts the Lua
# each one ships, as published, into CACHE/NAME/ (semsim's INI files are copied beside it):
#   tests/libraries/fetch_libraries.sh CACHE
# Exit 77 (ctest: skipped) when npm or the registry is not reachable: a missing network is not a
# finding about the libraries.
set -euo pipefail
cache=${1:?usage: $0 CACHE}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$cache"
command -v npm >/dev/null || { echo "skipped: npm is not installed"; exit 77; }
# Each package into CACHE/DIR: redlock 5 (its current release, 5.0.0-beta.2: npm's `latest` tag
# is still 4.2.0) beside 4.2.0.
for entry in redis-semaphore@5.8.0:redis-semaphore redlock@4.2.0:redlock redlock@5.0.0-beta.2:redlock-5; do
  pkg=${entry%:*}; dir=${entry##*:}; name=${pkg%@*}; version=${pkg#*@}
  tgz="$cache/$name-$version.tgz"
  if [ ! -s "$tgz" ]; then
    (cd "$cache" && timeout 120 npm pack --silent "$pkg" >/dev/null 2>"$cache/npm-$dir.log") \
      || { echo "skipped: npm pack $pkg failed: $(tail -1 "$cache/npm-$dir.log")"; exit 77; }
  fi
  rm -rf "${cache:?}/$dir" && mkdir -p "$cache/$dir/package"
  tar xzf "$tgz" -C "$cache/$dir"
done
python3 "$here/extract_lua.py" "$cache"
cp "$here"/redis-semaphore*.ini "$cache/redis-semaphore/"
cp "$here"/redlock.ini "$here"/redlock-masters.ini "$cache/redlock/"
cp "$here"/redlock-5.ini "$cache/redlock-5/"
