"""semsim's driver protocol (docs/drivers.md) for Python, so that a driver is its library's few calls:

    import semsim_driver as kit                     # PYTHONPATH=.../share/semsim/drivers/python
    kit.serve(
        library="redis", name="redis-py",           # the ready line: library=redis-py@4.3.4
        acquire=lambda key, lost: ...,              # kit.ok(detail, handle) | kit.fail(detail) | False
        release=lambda handle: ...,                 # kit.ok(detail) | kit.fail(detail) | bool
        refresh=lambda handle: ...,                 # optional; kit.ok(detail, new_handle) replaces the handle
        refused=(LockError,),                       # optional: errors that mean "no" (fail), not "unknown" (info)
        start=None, stop=None)                      # optional: before the warm-up, at quit

The kit reads SEMSIM_* (kit.masters, kit.key, kit.limit, kit.timeout_ms, kit.client), prints each
line with this process's CLOCK_MONOTONIC and wall clock read when the event happened, keeps each
ID's handle, says `ready` after a warm-up on KEY:warm-up, turns an error into `info` (its message on
one line), and says `refresh fail ID lost ...` when the library calls `lost` (from any thread).
It takes one command at a time, in order. Standard library only.
"""
import os
import sys
import threading
import time


def _required(name):
    value = os.environ.get(name, "")
    if not value:
        raise SystemExit("semsim_driver: %s is not set (run this under semsim)" % name)
    return value


# Every master's (host, port), in master order (one without --masters).
masters = [(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in _required("SEMSIM_REDIS").split()]
key = _required("SEMSIM_KEY")
limit = int(os.environ.get("SEMSIM_LIMIT") or 1)
timeout_ms = int(_required("SEMSIM_TIMEOUT_MS"))
client = int(os.environ.get("SEMSIM_CLIENT") or 0)

_out = threading.Lock()  # a library's own thread (a lost-lock callback) may speak too


def _one_line(text):
    return " ".join(str(text).split())


def say(op, phase, ident, detail=""):
    with _out:
        sys.stdout.write("%d %d %s %s %s %s\n" % (time.monotonic_ns(), int(time.time() * 1000), op, phase, ident,
                                                  _one_line(detail)))
        sys.stdout.flush()


def ok(detail="", handle=None):
    return {"ok": True, "detail": detail, "handle": handle}


def fail(detail=""):
    return {"ok": False, "detail": detail, "handle": None}


def _outcome(result):
    return result if isinstance(result, dict) else {"ok": bool(result), "detail": "", "handle": None}


def library_version(distribution, name=None):
    """NAME@VERSION of an installed distribution (importlib.metadata), or None when it cannot tell."""
    try:
        from importlib import metadata
        return "%s@%s" % (name or distribution, metadata.version(distribution).lstrip("v"))
    except Exception:  # no metadata (a module copied in by hand): the ready line names no library
        return None


class _Permit:
    """One ID's handle once its acquire was granted. `released` and `lost` do not stop the library
    from being asked again: a second release or a late refresh is what a test sends."""

    def __init__(self):
        self.handle = None
        self.released = False
        self.lost = False


def serve(acquire, release, refresh=None, library=None, name=None, refused=(), start=None, stop=None, warm_up=None):
    permits = {}
    refused = refused if isinstance(refused, tuple) else (refused,)

    def answer(op, ident, call):
        say(op, "invoke", ident)
        try:
            result = _outcome(call())
        except Exception as e:  # what the library did is unknown, unless it said no
            if isinstance(e, refused):
                say(op, "fail", ident, e)
            else:
                say(op, "info", ident, "error: %s" % e)
            return None
        say(op, "ok" if result["ok"] else "fail", ident, result["detail"])
        return result

    def serve_line(op, ident):
        permit = permits.get(ident)
        if op == "acquire":
            asked = _Permit()

            def lost(why="lost"):  # the library's own word, unasked: once, while still held
                if permits.get(ident) is asked and not asked.released and not asked.lost:
                    asked.lost = True
                    say("refresh", "fail", ident, "lost: %s" % why)

            result = answer(op, ident, lambda: acquire(key, lost))
            if result and result["ok"]:
                asked.handle = result["handle"]
                permits[ident] = asked
        elif op == "release":
            if permit is None:
                answer(op, ident, lambda: fail("not held"))
                return
            permit.released = True  # before the call: a timer the release stops is not a loss
            answer(op, ident, lambda: release(permit.handle))
        elif op == "refresh":
            if permit is None:
                answer(op, ident, lambda: fail("not held"))
            elif refresh is None:
                answer(op, ident, lambda: fail("not supported: no refresh in this library"))
            else:
                result = answer(op, ident, lambda: refresh(permit.handle))
                if result and result["ok"] and result["handle"] is not None:
                    permit.handle = result["handle"]
        else:
            sys.stderr.write("semsim_driver: unknown command %s\n" % op)

    # The library's code run once (its scripts loaded, its code warm) on a key of its own under the
    # run's, so that the plan's first acquire is as quick as its others.
    try:
        if start:
            start()
        if warm_up:
            warm_up("%s:warm-up" % key)
        else:
            granted = _outcome(acquire("%s:warm-up" % key, lambda why="": None))
            if granted["ok"]:
                if refresh:
                    refresh(granted["handle"])
                release(granted["handle"])
    except Exception as e:
        sys.stderr.write("semsim_driver: warm-up: %s\n" % _one_line(e))
    named = library_version(library, name) if library else None
    say("driver", "ok", "-", "ready library=%s" % named if named else "ready")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        serve_line(words[0], words[1] if len(words) > 1 else "-")
    if stop:
        try:
            stop()
        except Exception:
            pass
