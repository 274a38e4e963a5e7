#!/usr/bin/env bash
# Fetches a pinned published library into CACHE/NAME/ (once) and extracts its Lua as published
# (semsim's INI files are copied beside it):
#   tests/libraries/fetch_libraries.sh CACHE [NAME]     (no NAME: every library)
# The npm packages come with `npm pack`; redis-py's Lock is Debian's python3-redis, its Lua read
# from the installed module. Exit 77 (ctest: skipped) when npm, its registry or the Python module
# is not there: a missing package is not a finding about the libraries.
set -euo pipefail
cache=${1:?usage: $0 CACHE [NAME]}; only=${2:-}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$cache"
# NAME=npm package@version, or NAME=debian for a library of Debian's.
# redlock 5 (its current release, 5.0.0-beta.2: npm's `latest` tag is still 4.2.0) beside 4.2.0.
libraries=(redis-semaphore=redis-semaphore@5.8.0 redlock=redlock@4.2.0 redlock-5=redlock@5.0.0-beta.2
           sesame-redlock=@sesamecare-oss/redlock@1.4.0 redis-py=debian)
for entry in "${libraries[@]}"; do
  name=${entry%%=*}; pkg=${entry#*=}
  [ -z "$only" ] || [ "$only" = "$name" ] || continue
  if [ "$pkg" = debian ]; then
    rm -rf "${cache:?}/$name" && mkdir -p "$cache/$name"
    "$here/redis_py_lua.sh" "$cache/$name" || exit $?
  else
    command -v npm >/dev/null || { echo "skipped: npm is not installed"; exit 77; }
    tgz="$cache/$name-${pkg##*@}.tgz"
    if [ ! -s "$tgz" ]; then
      packed=$(cd "$cache" && timeout 120 npm pack --silent "$pkg" 2>"$cache/npm-$name.log") \
        || { echo "skipped: npm pack $pkg failed: $(tail -1 "$cache/npm-$name.log")"; exit 77; }
      [ "$cache/$packed" -ef "$tgz" ] || mv "$cache/$packed" "$tgz"
    fi
    rm -rf "${cache:?}/$name" && mkdir -p "$cache/$name/package"
    tar xzf "$tgz" -C "$cache/$name"
    python3 "$here/extract_lua.py" "$cache" "$name"
  fi
  cp "$here/$name".ini "$cache/$name/"
  case $name in  # the variants over several masters (masters_test.sh)
    redis-semaphore) cp "$here"/redis-semaphore-redlock-*.ini "$cache/$name/" ;;
    redlock) cp "$here"/redlock-masters.ini "$cache/$name/" ;;
  esac
done
