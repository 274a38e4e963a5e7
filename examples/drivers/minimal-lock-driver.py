#!/usr/bin/env python3
"""A semsim driver in plain Python with no Redis library at all: a lock by SET NX PX, released and
refreshed by compare-and-delete / compare-and-pexpire scripts, spoken in raw RESP over a socket.

The whole driver protocol (docs/drivers.md) in one file, to copy for a language of your own:
    stdin   acquire ID | release ID | refresh ID | quit
    stdout  MONO_NS WALL_MS OP PHASE ID [DETAIL]      ("driver ok - ready" once, first)
It takes one command at a time, in order. Run it with
    semsim run --variant "driver:python3 examples/drivers/minimal-lock-driver.py" --limit 1 ...
"""
import os
import socket
import sys
import time
import uuid

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
REFRESH = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
           "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")

host, port = os.environ["SEMSIM_REDIS"].split()[0].rsplit(":", 1)
key = os.environ["SEMSIM_KEY"]
lease_ms = os.environ["SEMSIM_TIMEOUT_MS"]


class RedisError(Exception):
    pass


class Redis:
    """One connection, opened again after it fails."""

    def __init__(self):
        self.sock, self.buf = None, b""

    def call(self, *words):
        if self.sock is None:
            self.sock, self.buf = socket.create_connection((host, int(port)), timeout=10), b""
        request = b"*%d\r\n" % len(words)
        for w in words:
            w = str(w).encode()
            request += b"$%d\r\n%s\r\n" % (len(w), w)
        try:
            self.sock.sendall(request)
            return self.reply()
        except OSError:
            self.sock.close()
            self.sock = None
            raise

    def read(self, n):
        while len(self.buf) < n:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the connection closed")
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def line(self):
        while b"\r\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self.line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RedisError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self.read(n + 2)[:-2].decode()
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise RedisError("unreadable reply %r" % line)


def say(op, phase, ident, detail=""):
    print(time.monotonic_ns(), int(time.time() * 1000), op, phase, ident, detail, flush=True)


redis = Redis()
redis.call("PING")
say("driver", "ok", "-", "ready")
tokens = {}  # ID -> the token its lock holds
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
            token = uuid.uuid4().hex
            if redis.call("SET", key, token, "NX", "PX", lease_ms) == "OK":
                tokens[ident] = token
                say(op, "ok", ident, token)
            else:
                say(op, "fail", ident)
        elif op == "release":
            token = tokens.pop(ident, None)
            gone = token is None or redis.call("EVAL", RELEASE, 1, key, token) == 0
            say(op, "fail" if gone else "ok", ident, "permit already gone" if gone else "")
        else:
            kept = ident in tokens and redis.call("EVAL", REFRESH, 1, key, tokens[ident], lease_ms) == 1
            say(op, "ok" if kept else "fail", ident, "" if kept else "permit lost")
    except (OSError, RedisError) as e:  # what Redis did is unknown
        say(op, "info", ident, "error: %s" % e)
