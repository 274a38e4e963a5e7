"""A lock library that is not one, for kit_test.py: each call is said on stderr (`library OP TOKEN`)
so that the test counts what reached the library. The third acquire raises an error of two lines
(unknown outcome); the fourth grant is lost by its "timer" 10 ms later (the lost-lock callback)."""
import sys
import threading


class Refused(Exception):
    pass


class Handle:
    def __init__(self, token):
        self.token = token
        self.released = False


_acquires = [0]


def _log(what):
    sys.stderr.write("library %s\n" % what)
    sys.stderr.flush()


def acquire(key, lost):
    _acquires[0] += 1
    _log("acquire %s" % key)
    if _acquires[0] == 3:
        raise ConnectionError("connection\n  reset by peer")
    handle = Handle("token-%d" % _acquires[0])
    if _acquires[0] == 4:
        threading.Timer(0.01, lost, ("its refresh timer failed",)).start()
    return handle


def release(handle):
    _log("release %s" % handle.token)
    first = not handle.released
    handle.released = True
    return first


def refresh(handle):
    _log("refresh %s" % handle.token)
    if handle.released:
        raise Refused("%s was released" % handle.token)
    return handle.token + "+"
