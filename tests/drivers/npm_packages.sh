#!/usr/bin/env bash
# Installs every pinned npm library the reference drivers' tests use into CACHE, and fetches the
# published libraries the libraries suite reads (tests/libraries/fetch_libraries.sh), once (ctest's
# fixture npm_packages): those tests then only read the folders, and run side by side.
#   tests/drivers/npm_packages.sh CACHE
# Exit 77 (skipped) without node/npm, the npm registry or python3-redis: the tests that need them are
# skipped too.
set -uo pipefail
cache=${1:?usage: $0 CACHE}
here=$(dirname "$(readlink -f "$0")")
. "$here/npm_library.sh"
npm_library redis-lock 1.0.0 node-redis-lock redis@4.7.1
npm_library redis-semaphore 5.8.0 node
npm_library redlock 4.2.0 node-redlock
npm_library redlock 5.0.0-beta.2 node-redlock-5
npm_library @sesamecare-oss/redlock 1.4.0 node-sesame-redlock
"$here/../libraries/fetch_libraries.sh" "$cache" || exit $?
echo "npm packages installed and published libraries fetched in $cache"
