#!/usr/bin/env bash
# redis-py's Lock as Debian ships it (python3-redis): writes DIR/version and DIR/{release,extend,
# reacquire}.lua, the class's LUA_*_SCRIPT strings read from the installed module (no edit).
# Exit 77 when no Python here imports redis (bootstrap installs python3-redis).
set -euo pipefail
dir=${1:?usage: $0 DIR}
# Debian's interpreter first: a python3 earlier on PATH (pyenv, a venv) may not see dist-packages.
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import redis.lock' 2>/dev/null; then
    exec "$py" - "$dir" <<'PY'
import pathlib, sys
import redis, redis.lock
out = pathlib.Path(sys.argv[1])
(out / "version").write_text(redis.__version__ + "\n")
(out / "module").write_text(redis.lock.__file__ + "\n")
for name in ("release", "extend", "reacquire"):
    (out / f"{name}.lua").write_text(getattr(redis.lock.Lock, f"LUA_{name.upper()}_SCRIPT"))
PY
  fi
done
echo "skipped: no python3 here imports redis (install Debian's python3-redis: ./bootstrap does)"
exit 77
