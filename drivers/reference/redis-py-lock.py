#!/usr/bin/python3
"""redis-py's Lock (Debian's python3-redis) on semsim's python kit.
    semsim run --variant "driver:/usr/bin/python3 drivers/reference/redis-py-lock.py" --limit 1 ...
What the library does that matters to semsim: an acquire is SET NX PX with a random token (one
attempt: blocking=False); release and reacquire (the refresh: the TTL back to the lease) are Lua
scripts that check the token, so a late release or refresh cannot touch the next holder's lock;
no timer, no clock read of its own (the lease is Redis's TTL). Its release of a lock it already
released is refused by the library itself (no token left), before Redis."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import semsim_driver as kit  # noqa: E402
import redis  # noqa: E402

host, port = kit.masters[0]
r = redis.Redis(host=host, port=port, socket_timeout=10)


def acquire(key, lost):
    lock = r.lock(key, timeout=kit.timeout_ms / 1000, blocking=False)
    return kit.ok(lock.local.token.decode(), lock) if lock.acquire() else kit.fail()


def release(lock):
    lock.release()
    return True


def refresh(lock):
    lock.reacquire()
    return True


# LockError (and LockNotOwnedError): the token is not the holder's, or the lock was released: "no".
kit.serve(library="redis", name="redis-py", acquire=acquire, release=release, refresh=refresh,
          refused=(redis.exceptions.LockError,), start=r.ping, stop=r.close)
