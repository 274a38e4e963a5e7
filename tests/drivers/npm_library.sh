# Sourced by the driver tests. npm_library LIBRARY VERSION DIR [PACKAGE@VERSION...]: installs the
# pinned npm LIBRARY@VERSION with its client (ioredis 5.9.3 unless other packages are given) into
# CACHE/DIR once (each library in a folder of its own, so that their pins stand side by side) and
# sets node_dir; exit 77 (ctest: skipped) without node and npm or when the install fails.
npm_library() {
  local library=$1 version=$2 dir=$3; shift 3
  [ $# -gt 0 ] || set -- ioredis@5.9.3
  command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node and npm are not installed"; exit 77; }
  node_dir="$cache/$dir"
  if [ ! -f "$node_dir/node_modules/$library/package.json" ] ||
     ! grep -Eq "\"version\": \"v?$version\"" "$node_dir/node_modules/$library/package.json"; then
    mkdir -p "$node_dir"
    timeout 300 npm install --prefix "$node_dir" --silent --no-audit --no-fund "$library@$version" "$@" \
      >"$cache/npm-$dir.log" 2>&1 || { echo "skipped: npm install failed: $(tail -1 "$cache/npm-$dir.log")"; exit 77; }
  fi
}
