"""The fake library (fake_lock.py, installed as distribution fake-lock) on the python kit, for
kit_test.py. FAKE_LIBRARY names the distribution the ready line is to name (one not installed: plain
`ready`)."""
import os
import sys

import fake_lock
import semsim_driver as kit


def start():
    sys.stderr.write("env %s key=%s limit=%d timeout=%d client=%d\n" % (
        " ".join("%s:%d" % m for m in kit.masters), kit.key, kit.limit, kit.timeout_ms, kit.client))


def acquire(key, lost):
    handle = fake_lock.acquire(key, lost)
    return kit.ok(handle.token, handle)


kit.serve(library=os.environ["FAKE_LIBRARY"], start=start, acquire=acquire,
          release=lambda handle: kit.ok() if fake_lock.release(handle) else kit.fail("already released"),
          refresh=lambda handle: kit.ok(fake_lock.refresh(handle)),
          refused=(fake_lock.Refused,), stop=lambda: sys.stderr.write("library stop\n"))
