#!/usr/bin/env python3
"""The driver kits (drivers/node/semsim-driver.js, drivers/python/semsim_driver.py) against a fake
library, with no semsim and no Redis: what each kit says, and what reaches the library.
    kit_test.py SOURCE_ROOT            (exit 77 without node: the python kit is still tested first)
Each kit runs a driver on a fake library installed as a package (npm's layout on NODE_PATH, a
dist-info on PYTHONPATH) and must: read SEMSIM_*; warm up on KEY:warm-up before `ready`; name the
library and its installed version on the ready line (plain `ready` when it is not installed);
stamp lines with CLOCK_MONOTONIC ns and wall ms read when they happen; pass a second release and a
refresh after release to the library (twice the release, once the refresh); make a refusal `fail`
and any other error `info` with its message on one line; say a loss the library reports unasked;
answer `not held` for an ID never granted without asking the library; call stop at quit."""
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

root = os.path.abspath(sys.argv[1])
here = os.path.join(root, "tests", "drivers", "kit")
failures = []


def check(what, condition, detail=""):
    print("%s  %s%s" % ("ok  " if condition else "FAIL", what, (": " + detail) if detail and not condition else ""))
    if not condition:
        failures.append(what)


class Driver:
    """A driver process, its stdout lines as they come, and its stderr."""

    def __init__(self, command, env):
        full = dict(os.environ, SEMSIM_REDIS="127.0.0.1:7001 127.0.0.1:7002", SEMSIM_KEY="run:k",
                    SEMSIM_LIMIT="2", SEMSIM_TIMEOUT_MS="500", SEMSIM_CLIENT="3", **env)
        self.err = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen(command, env=full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.p.stdout], daemon=True).start()

    def next(self):
        try:
            return self.lines.get(timeout=10).rstrip("\n")
        except queue.Empty:
            return "(nothing in 10 s; stderr: %s)" % self.stderr()

    def send(self, command, answers=2):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        return [self.next().split(None, 5) for _ in range(answers)]

    def stderr(self):
        self.err.seek(0)
        return self.err.read()


def words(fields):
    """OP PHASE ID DETAIL of a line's fields (the clocks dropped)."""
    return " ".join(fields[2:])


def exercise(kit, command, env):
    print("-- %s kit" % kit)
    before_ns, before_ms = time.monotonic_ns(), time.time() * 1000
    d = Driver(command, dict(env, FAKE_LIBRARY="fake-lock"))
    ready = d.next().split(None, 5)
    after_ns, after_ms = time.monotonic_ns(), time.time() * 1000
    check(kit + ": the ready line names the library and its installed version (a leading v dropped)",
          words(ready) == "driver ok - ready library=fake-lock@2.3.4", " ".join(ready))
    check(kit + ": MONO_NS is CLOCK_MONOTONIC in ns, read when the line was said",
          len(ready) > 1 and before_ns <= int(ready[0]) <= after_ns, "%s not in [%d, %d]" % (ready[:1], before_ns, after_ns))
    check(kit + ": WALL_MS is the wall clock in ms",
          len(ready) > 1 and before_ms - 1 <= int(ready[1]) <= after_ms + 1, "%s not in [%d, %d]" % (ready[1:2], before_ms, after_ms))
    err = d.stderr()
    check(kit + ": SEMSIM_* read (every master, key, limit, lease, client)",
          "env 127.0.0.1:7001 127.0.0.1:7002 key=run:k limit=2 timeout=500 client=3" in err, err)
    check(kit + ": warm-up (acquire, refresh, release on KEY:warm-up) before ready",
          "library acquire run:k:warm-up\nlibrary refresh token-1\nlibrary release token-1\n" in err, err)

    got = d.send("acquire a1")
    check(kit + ": acquire: invoke, then ok with the library's identifier",
          [words(f) for f in got] == ["acquire invoke a1", "acquire ok a1 token-2"], str(got))
    check(kit + ": invoke before the outcome on the monotonic clock", int(got[0][0]) <= int(got[1][0]), str(got))
    got = d.send("release a1") + d.send("release a1")
    check(kit + ": a double release is the library's release called again on the same handle",
          [words(f) for f in got] == ["release invoke a1", "release ok a1", "release invoke a1",
                                      "release fail a1 already released"], str(got))
    got = d.send("refresh a1")
    check(kit + ": a refresh after release reaches the library, whose refusal is `fail` with its message",
          [words(f) for f in got] == ["refresh invoke a1", "refresh fail a1 token-2 was released"], str(got))
    got = d.send("acquire a2")
    check(kit + ": an error is `info` with its message on one line",
          [words(f) for f in got] == ["acquire invoke a2", "acquire info a2 error: connection reset by peer"], str(got))
    got = d.send("acquire a3", answers=3)
    check(kit + ": a loss the library reports is said unasked",
          [words(f) for f in got] == ["acquire invoke a3", "acquire ok a3 token-4",
                                      "refresh fail a3 lost: its refresh timer failed"], str(got))
    got = d.send("refresh a3")
    check(kit + ": a refresh after the loss still reaches the library",
          [words(f) for f in got] == ["refresh invoke a3", "refresh ok a3 token-4+"], str(got))
    got = d.send("release a2") + d.send("refresh nobody")
    check(kit + ": an ID never granted is `not held`, the library not asked",
          [words(f) for f in got] == ["release invoke a2", "release fail a2 not held",
                                      "refresh invoke nobody", "refresh fail nobody not held"], str(got))
    d.p.stdin.write("quit\n")
    d.p.stdin.flush()
    code = d.p.wait(timeout=10)
    err = d.stderr()
    calls = [line for line in err.splitlines() if line.startswith("library ")]
    check(kit + ": quit calls stop and exits 0", code == 0 and calls[-1:] == ["library stop"], "exit %d: %s" % (code, err))
    check(kit + ": what reached the library (a double release twice, the refreshes after release and loss)",
          calls == ["library acquire run:k:warm-up", "library refresh token-1", "library release token-1",
                    "library acquire run:k", "library release token-2", "library release token-2",
                    "library refresh token-2", "library acquire run:k", "library acquire run:k",
                    "library refresh token-4", "library stop"], str(calls))

    d = Driver(command, dict(env, FAKE_LIBRARY="not-installed-lock"))
    ready = d.next().split(None, 5)
    check(kit + ": plain `ready` when the library's version cannot be told", words(ready) == "driver ok - ready", str(ready))
    d.p.stdin.close()
    check(kit + ": the end of stdin ends the driver", d.p.wait(timeout=10) == 0)


with tempfile.TemporaryDirectory() as tmp:
    site = os.path.join(tmp, "site")
    os.makedirs(os.path.join(site, "fake_lock-2.3.4.dist-info"))
    shutil.copy(os.path.join(here, "fake_lock.py"), site)
    with open(os.path.join(site, "fake_lock-2.3.4.dist-info", "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: fake-lock\nVersion: 2.3.4\n")
    exercise("python", [sys.executable, os.path.join(here, "fake_lock_driver.py")],
             {"PYTHONPATH": os.path.join(root, "drivers", "python") + os.pathsep + site})

    if shutil.which("node") is None:
        print("skipped: the node kit (node is not installed)")
        sys.exit(1 if failures else 77)
    package = os.path.join(tmp, "node_modules", "fake-lock")
    os.makedirs(os.path.join(package, "lib"))
    shutil.copy(os.path.join(here, "fake-lock.js"), os.path.join(package, "lib", "index.js"))
    with open(os.path.join(package, "package.json"), "w") as f:  # redlock 5's own version is "v5.0.0-beta.2"
        json.dump({"name": "fake-lock", "version": "v2.3.4", "main": "lib/index.js"}, f)
    exercise("node", ["node", os.path.join(here, "fake-lock-driver.js")],
             {"NODE_PATH": os.path.join(root, "drivers", "node") + os.pathsep + os.path.join(tmp, "node_modules")})

print("%d check(s) failed: %s" % (len(failures), "; ".join(failures)) if failures else "all checks passed")
sys.exit(1 if failures else 0)
