"""Pulls the Lua out of the published JavaScript, as published (no edit), into NAME/*.lua:
    python3 tests/libraries/extract_lua.py CACHE NAME

redis-semaphore 5.8.0 passes each script as the template string of createEval(`...`, numkeys) in
lib/semaphore/{acquire,refresh}/lua.js, and its mutexes' (RedlockMutex's too) in lib/mutex/
{release,refresh}.js; redlock 4.2.0 keeps its three scripts in the constants lockScript,
unlockScript and extendScript of redlock.js, redlock 5.0.0-beta.2 in ACQUIRE_SCRIPT,
EXTEND_SCRIPT and RELEASE_SCRIPT of dist/cjs/index.js; @sesamecare-oss/redlock 1.4.0 in the
constants ACQUIRE_SCRIPT, EXTEND_SCRIPT and RELEASE_SCRIPT of build/scripts.js, each starting with
the template's ${DB_SELECT_SCRIPT}, filled in here as JavaScript would.
"""
import pathlib
import re
import sys

cache = pathlib.Path(sys.argv[1])
name = sys.argv[2]


def template(js, pattern, what):
    m = re.search(pattern, js, re.S)
    if not m:
        sys.exit(f"extract_lua.py: {what}: the published file no longer has the script where the pinned version had it")
    return m.group(1).strip() + "\n"


if name == "redis-semaphore":
    sem = cache / name / "package" / "lib" / "semaphore"
    for op in ("acquire", "refresh"):
        js = (sem / op / "lua.js").read_text()
        (cache / name / f"{op}.lua").write_text(template(js, r"createEval\)\(`(.*?)`", f"redis-semaphore {op}"))
    for op in ("release", "refresh"):
        js = (sem.parent / "mutex" / f"{op}.js").read_text()
        (cache / name / f"mutex-{op}.lua").write_text(template(js, r"createEval\)\(`(.*?)`", f"redis-semaphore mutex {op}"))
elif name == "redlock":
    js = (cache / name / "package" / "redlock.js").read_text()
    for script in ("lock", "unlock", "extend"):
        (cache / name / f"{script}.lua").write_text(template(js, rf"const {script}Script = `(.*?)`;", f"redlock {script}Script"))
elif name == "redlock-5":
    js = (cache / name / "package" / "dist" / "cjs" / "index.js").read_text()
    for script in ("acquire", "extend", "release"):
        (cache / name / f"{script}.lua").write_text(template(js, rf"const {script.upper()}_SCRIPT = `(.*?)`;", f"redlock 5 {script.upper()}_SCRIPT"))
elif name == "sesame-redlock":
    js = (cache / name / "package" / "build" / "scripts.js").read_text()
    select = template(js, r"const DB_SELECT_SCRIPT = `(.*?)`;", "sesame-redlock DB_SELECT_SCRIPT")
    for script in ("acquire", "extend", "release"):
        lua = template(js, rf"const {script.upper()}_SCRIPT = `(.*?)`;", f"sesame-redlock {script.upper()}_SCRIPT")
        if "${" in lua.replace("${DB_SELECT_SCRIPT}", ""):
            sys.exit(f"extract_lua.py: sesame-redlock {script}: a template placeholder other than DB_SELECT_SCRIPT")
        (cache / name / f"{script}.lua").write_text(lua.replace("${DB_SELECT_SCRIPT}", select))
else:
    sys.exit(f"extract_lua.py: no extraction known for {name}")
