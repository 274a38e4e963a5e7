#!/usr/bin/env python3
"""A lock driver whose library runs Lua through semsim's proxy, for the tests of what the proxy
lets a script do on a user's Redis (docs/drivers.md, what a driver may send). argv[1]:
  lock      a lease lock as libraries write one: EVALSHA first, EVAL on NOSCRIPT (KEYS[1], SET NX PX)
  flushall  every acquire EVALs redis.call('FLUSHALL')
  foreign   every acquire EVALs a script that deletes app:z, a key it was not given
  users     every acquire EVALSHAs argv[2], a script the user's server has loaded (it deletes app:z)
What Redis answered each script goes to stderr."""
import hashlib
import os
import socket
import sys
import time

how = sys.argv[1]
host, port = os.environ["SEMSIM_REDIS"].split()[0].rsplit(":", 1)
key, ttl = os.environ["SEMSIM_KEY"].encode(), os.environ["SEMSIM_TIMEOUT_MS"].encode()
conn = socket.create_connection((host, int(port)), timeout=5)
LOCK = b"if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0"
UNLOCK = b"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def say(*words):
    print(time.monotonic_ns(), int(time.time() * 1000), *words, flush=True)


def call(*words):
    """One command; its reply's first line (b'' once the proxy closed the connection)."""
    conn.sendall(b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words))
    reply = b""
    try:
        while not reply.endswith(b"\r\n"):
            part = conn.recv(4096)
            if not part:
                break
            reply += part
    except OSError:
        pass
    print(words[0].decode(), "->", reply.decode(errors="replace").strip(), file=sys.stderr, flush=True)
    return reply.split(b"\r\n")[0]


def script(body, *keys_and_args, keys=1):
    reply = call(b"EVALSHA", hashlib.sha1(body).hexdigest().encode(), str(keys).encode(), *keys_and_args)
    if reply.startswith(b"-NOSCRIPT"):
        reply = call(b"EVAL", body, str(keys).encode(), *keys_and_args)
    return reply


say("driver", "ok", "-", "ready")
for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "quit":
        break
    op, ident = words
    say(op, "invoke", ident)
    if how == "flushall":
        call(b"EVAL", b"return redis.call('FLUSHALL')", b"0")
    elif how == "foreign":
        call(b"EVAL", b"return redis.call('DEL', 'app:z')", b"0")
    elif how == "users":
        call(b"EVALSHA", sys.argv[2].encode(), b"0")
    elif op == "acquire":
        if script(LOCK, key, ident.encode(), ttl) == b":1":
            say(op, "ok", ident)
            continue
    elif op == "release":
        if script(UNLOCK, key, ident.encode()) == b":1":
            say(op, "ok", ident)
            continue
    say(op, "fail", ident)
