#!/usr/bin/env bash
# A search or a sweep sharded over a few hosts with plain xargs -P and ssh (docs/scale-out.md):
# shard K of N runs on the K-th host, its --out folder is copied back, and `semsim merge` puts the
# shards together. Without HOSTS the N shards run here, as N processes (SHARDS=N).
#
#   HOSTS="box1 box2 box3" examples/scale-out/xargs-shards.sh OUT check --variant lua --cases 1000000 --seed 1
#   SHARDS=2 examples/scale-out/xargs-shards.sh OUT compare --variants basic,lua --skews 0,5ms --jobs 1
#
# Every host needs the same semsim build on its PATH (the merge refuses shards of different builds)
# and a writable REMOTE_DIR (default /tmp/semsim-shards). Shard K's log: OUT/logs/shard-K.log.
# Exit: that of `semsim merge`, which exits as the unsharded command would (check: 1 on a safety
# violation, 3 on a liveness one alone; 2 naming a shard that is missing or stopped early).
set -u
out=${1:?usage: [HOSTS="h1 h2 ..." | SHARDS=N] $0 OUT_DIR check|compare OPTIONS...}
shift
[ $# -ge 1 ] || { echo "usage: $0 OUT_DIR check|compare OPTIONS..." >&2; exit 2; }
read -r -a hosts <<<"${HOSTS:-}"
n=${SHARDS:-${#hosts[@]}}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "give HOSTS (one shard each) or SHARDS=N (all here)" >&2; exit 2; }
mkdir -p "$out/shards" "$out/logs"

# One shard: `shard K ARGS...`. A violation in its cases (1, or 3) is the merge's to judge.
shard() {
  local k=$1 host dir code=0
  shift
  read -r -a hosts <<<"${HOSTS:-}"
  host=${hosts[$((k - 1))]:-}
  dir=$out/shards/shard-$k
  rm -rf "$dir"
  if [ -z "$host" ]; then
    "${SEMSIM:-semsim}" "$@" --shard "$k/$n" --out "$dir" || code=$?
  else
    local remote=${REMOTE_DIR:-/tmp/semsim-shards}/shard-$k
    ssh "$host" "rm -rf $remote && ${SEMSIM:-semsim} $(printf '%q ' "$@") --shard $k/$n --out $remote" || code=$?
    scp -rq "$host:$remote" "$dir" || echo "shard $k/$n: could not copy $host:$remote" >&2
  fi
  case $code in 0 | 1 | 3) ;; *) echo "shard $k/$n failed (exit $code): see $out/logs/shard-$k.log" >&2 ;; esac
}
export -f shard
export out n

seq 1 "$n" | xargs -P "$n" -I{} bash -c 'shard "$@" >"$out/logs/shard-$0.log" 2>&1' {} {} "$@"
"${SEMSIM:-semsim}" merge "$out"/shards/shard-* --out "$out/merged"
