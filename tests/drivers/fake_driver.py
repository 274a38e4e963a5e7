#!/usr/bin/env python3
"""A driver that breaks the protocol in one chosen way (argv[1]), for semsim's tests of what it
refuses: every other line is right; or, with "loses-permit", one whose library is granted every
permit and reports it lost at once, unasked; or, with "grants-elsewhere", one whose library grants
every acquire without a word to semsim's Redis (as one reading a REDIS_URL of its own would); or,
with "slow-invoke", one that grants every command 300 ms after reading it (a loaded machine); or,
with "stalls", one that grants the first acquire and then never starts another command; or one
that sends Redis, through its proxy, what a run never sends ("config-get", "foreign-key"); or,
with "address", one that only writes its proxy's address to argv[2].addr. Its pid goes to argv[2]
if given."""
import os
import socket
import sys
import time

how = sys.argv[1]
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write(str(os.getpid()))


def say(*words):
    print(time.monotonic_ns(), int(time.time() * 1000), *words, flush=True)


def to_redis(*words):
    """One command to Redis through semsim's proxy (SEMSIM_REDIS); what came back (b'' once it closed)."""
    host, port = os.environ["SEMSIM_REDIS"].split()[0].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words))
    try:
        return s.recv(4096)
    except OSError:
        return b""


if how == "address":
    open(sys.argv[2] + ".addr", "w").write(os.environ["SEMSIM_REDIS"])


if how == "never-ready":
    time.sleep(600)
if how == "exit-before-ready":
    print("about to fail", file=sys.stderr, flush=True)
    sys.exit(4)
say("driver", "ok", "-", "ready")
if how == "ready-twice":
    say("driver", "ok", "-", "ready")
stalled = False
for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "quit":
        break
    op, ident = words
    if how == "loses-permit" and op == "acquire":
        say(op, "invoke", ident)
        say(op, "ok", ident, "token-" + ident)
        say("refresh", "fail", ident, "lost: the lock expired")
        continue
    if how == "stalls":
        if stalled:
            continue
        stalled = True
    if how == "slow-invoke":
        time.sleep(0.3)
    if how in ("grants-elsewhere", "slow-invoke", "stalls"):
        say(op, "invoke", ident)
        say(op, "ok", ident)
        continue
    if how == "exit-mid-run":
        sys.exit(5)
    if how == "config-get":
        print("CONFIG GET:", to_redis(b"CONFIG", b"GET", b"requirepass"), file=sys.stderr, flush=True)
    if how == "foreign-key":
        print("SET app:y:", to_redis(b"SET", b"app:y", b"x"), file=sys.stderr, flush=True)
    if how == "unknown-id":
        say(op, "invoke", "nobody-sent-this")
    if how == "outcome-before-invoke":
        say(op, "ok", ident)
    if how == "garbage-mid-run":
        print("acquire? sure, why not", flush=True)
    say(op, "invoke", ident)
    say(op, "fail", ident)
