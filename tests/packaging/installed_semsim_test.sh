#!/usr/bin/env bash
# An installed semsim works with no source tree and no build folder around: `cmake --install`
# into a fresh prefix, then from another directory --version names the release and the commit,
# the man page is there, a shipped scenario runs by its bare name, and the binary has no RPATH
# into the build folder; `cpack -G DEB` makes a .deb whose Depends names redis-server and the
# shared libraries dpkg-shlibdeps found.
#   installed_semsim_test.sh BUILD_DIR
set -euo pipefail
build=$(readlink -f "$1")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/p" >/dev/null
bin=$tmp/p/bin/semsim
[ -x "$bin" ] || fail "no bin/semsim"
! readelf -d "$bin" | grep -E 'RPATH|RUNPATH' | grep -qF "$build" || fail "RPATH into the build folder"
mkdir "$tmp/elsewhere"; cd "$tmp/elsewhere"
v=$("$bin" --version)
[[ $v =~ ^semsim\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]+ ]] || fail "--version printed '$v'"
[ -f "$tmp/p/share/man/man1/semsim.1.gz" ] || fail "no man page"
# Read whole first: under pipefail, `zcat | grep -q` fails when grep quits before zcat has written all.
man=$(zcat "$tmp/p/share/man/man1/semsim.1.gz")
grep -q 'semsim check' <<<"$man" || fail "the man page lacks the subcommands' help"
# The user documentation beside it, where --help says it is; the man page with real paths and examples.
for doc in README.md reports/DEFINITIONS.md docs/script-variants.md docs/testing-your-library.md docs/libraries.md \
           docs/performance.md scenarios/README.md; do
  [ -f "$tmp/p/share/doc/semsim/$doc" ] || fail "share/doc/semsim/$doc not installed"
done
"$bin" run --help | grep -qF "Documentation: $tmp/p/share/doc/semsim/README.md" || fail "run --help does not point to the installed docs"
grep -q '^\.SH FILES' <<<"$man" && grep -q '^\.SH EXAMPLES' <<<"$man" || fail "the man page has no FILES or EXAMPLES"
grep -q '/usr/share/doc/semsim/' <<<"$man" && grep -q 'steal-10ms.clients.csv' <<<"$man" || fail "the man page lacks real paths"
! grep -q 'PREFIX/' <<<"$man" || fail "the man page names PREFIX/: $(grep -m1 'PREFIX/' <<<"$man")"
"$bin" scenario steal-10ms.ini --out "$tmp/o" >"$tmp/scenario.log" 2>&1 || { cat "$tmp/scenario.log"; fail "shipped scenario by name"; }
grep -q "$tmp/p/share/semsim/scenarios/steal-10ms.ini" "$tmp/scenario.log" || fail "the scenario did not come from the installed tree"
grep -q "^# semsim $(echo "$v" | cut -d' ' -f2-)" "$tmp/o/steal-10ms/basic/run.ini" || fail "run.ini does not carry the version"
"$bin" run --variant ttl-key --clients 2 --limit 1 --duration 100ms --no-charts --out "$tmp/ttl" >"$tmp/ttl.log" 2>&1 \
  || { cat "$tmp/ttl.log"; fail "installed semsim cannot run ttl-key"; }
[ -f "$tmp/p/lib/semsim/libsemsim_clock.so" ] || fail "the clock library is not installed"
! grep -q "Redis's clock runs on its own" "$tmp/ttl.log" || fail "the installed semsim did not find its clock library"
[ -f "$tmp/p/lib/semsim/libsemsim_client_clock.so" ] || fail "the client clock library is not installed"
"$bin" run --variant "driver:python3 $tmp/p/share/semsim/examples/drivers/minimal-lock-driver.py" --clients 1 --limit 1 \
  --skew fixed:-50ms --duration 300ms --no-charts --out "$tmp/driver" >"$tmp/driver.log" 2>&1 \
  || { cat "$tmp/driver.log"; fail "installed semsim cannot run a driver (its client clock library)"; }
"$bin" scenario no-such-scenario.ini >"$tmp/missing.log" 2>&1 && fail "a missing scenario ran"
[ -x "$tmp/p/share/semsim/examples/ci/semsim-ci.sh" ] || fail "examples/ci/semsim-ci.sh not installed executable"

(cd "$build" && cpack -G DEB -B "$tmp/deb" >/dev/null)
deb=$(ls "$tmp"/deb/semsim_*.deb)
dpkg-deb -c "$deb" >"$tmp/deb.list"
grep -q '\./usr/share/doc/semsim/reports/DEFINITIONS.md$' "$tmp/deb.list" || fail "the .deb carries no /usr/share/doc/semsim"
# What Debian expects of every package: the license in copyright (machine-readable), the changelog.
grep -q '\./usr/share/doc/semsim/copyright$' "$tmp/deb.list" || fail "the .deb carries no /usr/share/doc/semsim/copyright"
grep -q '\./usr/share/doc/semsim/changelog.gz$' "$tmp/deb.list" || fail "the .deb carries no /usr/share/doc/semsim/changelog.gz"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/semsim/copyright | grep -q '^License: Expat' \
  || fail "the .deb's copyright names no license"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/semsim/changelog.gz | gzip -dc | head -1 | grep -qF "semsim ($(
  "$bin" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1))" || fail "the .deb's changelog does not start with its version"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *redis-server* && $depends == *"libc6 (>="* && $depends == *libhiredis* ]] || fail "Depends: $depends"
echo "installed semsim ok: $v; $(basename "$deb") $(du -k "$deb" | cut -f1) KiB; Depends: $depends"
