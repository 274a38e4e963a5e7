#!/usr/bin/env python3
"""A driver over N masters for semsim's tests (tests/drivers/driver_run_test.cpp), with no Redis
library: Redlock's lock in raw RESP. An acquire is SET NX PX on every master SEMSIM_REDIS names, each
with a timeout of its own (argv[1] ms, default 200: a master that does not answer in time gives no
vote, and its connection is dropped, for a late reply must not be read as the next one); ok when a
majority said OK. A release deletes the key where it is still ours. Each outcome's detail names the
masters that said yes (`granted=1,3`), so that a test sees which masters it reached.
At start it writes the addresses it was given to stderr: `masters: HOST:PORT HOST:PORT ...`."""
import os
import socket
import sys
import time
import uuid

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
masters = os.environ["SEMSIM_REDIS"].split()
key = os.environ["SEMSIM_KEY"]
lease_ms = os.environ["SEMSIM_TIMEOUT_MS"]
timeout_s = (float(sys.argv[1]) if len(sys.argv) > 1 else 200) / 1000


class Master:
    """One connection to one master, opened again after it fails or times out."""

    def __init__(self, address):
        host, port = address.rsplit(":", 1)
        self.address, self.sock, self.buf = (host, int(port)), None, b""

    def call(self, *words):
        # A connection that broke since its last use (the master restarted) is opened again once.
        for _ in range(2):
            fresh = self.sock is None
            try:
                if fresh:
                    self.sock, self.buf = socket.create_connection(self.address, timeout=timeout_s), b""
                request = b"*%d\r\n" % len(words)
                for w in words:
                    w = str(w).encode()
                    request += b"$%d\r\n%s\r\n" % (len(w), w)
                self.sock.sendall(request)
                line = self.line()
                if line[:1] == b"$" and int(line[1:]) >= 0:  # a bulk string: its text is the next line
                    line = self.line()
                return line.decode()
            except socket.timeout:
                self.close()
                return None  # no answer in time: no vote
            except OSError:
                self.close()
                if fresh:
                    return None
        return None

    def line(self):
        while b"\r\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def close(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = None


def say(op, phase, ident, detail=""):
    print(time.monotonic_ns(), int(time.time() * 1000), op, phase, ident, detail, flush=True)


print("masters: " + " ".join(masters), file=sys.stderr, flush=True)
links = [Master(a) for a in masters]
for link in links:
    link.call("PING")
say("driver", "ok", "-", "ready")
tokens = {}
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        break
    op, ident = words[0], words[1]
    say(op, "invoke", ident)
    if op == "acquire":
        token = uuid.uuid4().hex
        yes = [m + 1 for m, link in enumerate(links) if link.call("SET", key, token, "NX", "PX", lease_ms) == "+OK"]
        granted = "granted=" + (",".join(map(str, yes)) or "none")
        if 2 * len(yes) > len(links):
            tokens[ident] = token
            say(op, "ok", ident, granted)
        else:
            for link in links:
                link.call("EVAL", RELEASE, 1, key, token)
            say(op, "fail", ident, granted)
    elif op == "release":
        token = tokens.pop(ident, None)
        for link in links:
            if token is not None:
                link.call("EVAL", RELEASE, 1, key, token)
        say(op, "ok" if token else "fail", ident)
    else:
        say(op, "fail", ident, "not supported")
