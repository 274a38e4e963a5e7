#!/usr/bin/env bash
# Where --help sends a reader, from a build folder: every command's "Documentation:" line names the
# source tree's files, and they exist (not /usr/share/doc paths a source build lacks); the man page
# made at build time names the Debian package's /usr/share/doc/semsim/ and no path of the tree.
# (An installed semsim's --help: packaging/installed_semsim_test.sh.)
#   help_points_at_docs_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(readlink -f "$1") src=$(readlink -f "$2")
fail() { echo "FAIL: $*" >&2; exit 1; }
for command in "" run scenario check compare analyze conformance merge; do
  help=$("$build/semsim" $command --help)
  line=$(grep '^Documentation: ' <<<"$help") || fail "semsim $command --help: no Documentation line"
  [[ $line == "Documentation: $src/README.md; "* ]] || fail "semsim $command --help: $line"
  # Every path the line names is there: README.md, docs/, reports/DEFINITIONS.md, scenarios/README.md.
  for path in $(grep -oE '/[^ ;,]+' <<<"${line%.}"); do
    [ -e "$path" ] || fail "semsim $command --help names $path, which does not exist"
  done
done
[ -f "$build/man/semsim.1.gz" ] || fail "no man page in $build/man"
man=$(zcat "$build/man/semsim.1.gz")
grep -q '/usr/share/doc/semsim/README.md' <<<"$man" || fail "the man page does not name /usr/share/doc/semsim/README.md"
# help2man writes a - as \-: the tree's path, as the page spells it.
roff_src=${src//-/\\-}
! grep -qF -e "$src" -e "$roff_src" <<<"$man" || fail "the man page names the source tree: $(grep -m1 -F -e "$src" -e "$roff_src" <<<"$man")"
echo "--help points at $src's docs; the man page at /usr/share/doc/semsim/"
