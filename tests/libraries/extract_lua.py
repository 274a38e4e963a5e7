"""Pulls the Lua out of the published JavaScript, as published (no edit), into NAME/*.lua.

redis-semaphore 5.8.0 passes each script as the template string of createEval(`...`, numkeys) in
lib/semaphore/{acquire,refresh}/lua.js, and its mutexes' (RedlockMutex's too) in lib/mutex/
{release,refresh}.js; redlock 4.2.0 keeps its three scripts in the constants lockScript,
unlockScript and extendScript of redlock.js, redlock 5.0.0-beta.2 in ACQUIRE_SCRIPT,
EXTEND_SCRIPT and RELEASE_SCRIPT of dist/cjs/index.js.
"""
import pathlib
import re
import sys

cache = pathlib.Path(sys.argv[1])


def template(js, pattern, what):
    m = re.search(pattern, js, re.S)
    if not m:
        sys.exit(f"extract_lua.py: {what}: the published file no longer has the script where 5.8.0/4.2.0 had it")
    return m.group(1).strip() + "\n"


sem = cache / "redis-semaphore" / "package" / "lib" / "semaphore"
for op in ("acquire", "refresh"):
    js = (sem / op / "lua.js").read_text()
    (cache / "redis-semaphore" / f"{op}.lua").write_text(template(js, r"createEval\)\(`(.*?)`", f"redis-semaphore {op}"))
for op in ("release", "refresh"):
    js = (sem.parent / "mutex" / f"{op}.js").read_text()
    (cache / "redis-semaphore" / f"mutex-{op}.lua").write_text(template(js, r"createEval\)\(`(.*?)`", f"redis-semaphore mutex {op}"))

js = (cache / "redlock" / "package" / "redlock.js").read_text()
for name in ("lock", "unlock", "extend"):
    (cache / "redlock" / f"{name}.lua").write_text(template(js, rf"const {name}Script = `(.*?)`;", f"redlock {name}Script"))

js = (cache / "redlock-5" / "package" / "dist" / "cjs" / "index.js").read_text()
for name in ("acquire", "extend", "release"):
    (cache / "redlock-5" / f"{name}.lua").write_text(template(js, rf"const {name.upper()}_SCRIPT = `(.*?)`;", f"redlock 5 {name.upper()}_SCRIPT"))
