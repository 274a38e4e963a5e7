#!/usr/bin/python3
"""A semsim driver around redis-py's Lock (Debian's python3-redis): SET NX PX with a token,
released and extended by its own Lua scripts. docs/drivers.md describes the protocol.
    semsim run --variant "driver:/usr/bin/python3 examples/drivers/redis-py-lock-driver.py" --limit 1 ...
A lock admits one holder: run it with --limit 1. It takes one command at a time, in order."""
import os
import sys
import time

import redis

host, port = os.environ["SEMSIM_REDIS"].split()[0].rsplit(":", 1)
key = os.environ["SEMSIM_KEY"]
timeout = int(os.environ["SEMSIM_TIMEOUT_MS"]) / 1000
r = redis.Redis(host=host, port=int(port), socket_timeout=10)
held = {}


def say(op, phase, ident, detail=""):
    print(time.monotonic_ns(), int(time.time() * 1000), op, phase, ident, detail, flush=True)


r.ping()
say("driver", "ok", "-", "ready")
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        break
    op, ident = words[0], words[1]
    say(op, "invoke", ident)
    try:
        if op == "acquire":
            lock = r.lock(key, timeout=timeout, blocking=False)
            if lock.acquire():
                held[ident] = lock
                say(op, "ok", ident, lock.local.token.decode())
            else:
                say(op, "fail", ident)
        elif op == "release":
            lock = held.pop(ident, None)
            if lock is None:
                say(op, "fail", ident, "not held")
                continue
            try:
                lock.release()
                say(op, "ok", ident)
            except redis.exceptions.LockNotOwnedError:
                say(op, "fail", ident, "permit already gone")
        else:
            lock = held.get(ident)
            if lock is not None and lock.reacquire():
                say(op, "ok", ident)
            else:
                say(op, "fail", ident, "permit lost")
    except redis.exceptions.LockNotOwnedError:
        say(op, "fail", ident, "permit lost")
    except redis.exceptions.RedisError as e:  # what Redis did is unknown
        say(op, "info", ident, "error: %s" % e)
