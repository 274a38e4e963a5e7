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
for pkg in redis-semaphore@5.8.0 redlock@4.2.0; do
  name=${pkg%@*}; version=${pkg#*@}
  tgz="$cache/$name-$version.tgz"
  if [ ! -s "$tgz" ]; then
    (cd "$cache" && timeout 120 npm pack --silent "$pkg" >/dev/null 2>"$cache/npm-$name.log") \
      || { echo "skipped: npm pack $pkg failed: $(tail -1 "$cache/npm-$name.log")"; exit 77; }
  fi
  rm -rf "$cache/$name" && mkdir -p "$cache/$name/package"
  tar xzf "$tgz" -C "$cache/$name"
done
python3 "$here/extract_lua.py" "$cache"
cp "$here"/redis-semaphore*.ini "$cache/redis-semaphore/"
cp "$here"/redlock*.ini "$cache/redlock/"
