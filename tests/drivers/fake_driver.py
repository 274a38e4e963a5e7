#!/usr/bin/env python3
"""A driver that breaks the protocol in one chosen way (argv[1]), for semsim's tests of what it
refuses: every other line is right; or, with "loses-permit", one whose library is granted every
permit and reports it lost at once, unasked; or, with "grants-all", one whose library grants every
acquire (however many permits its client already holds) and does every release and refresh. Its pid goes to argv[2] if given."""
import os
import sys
import time

how = sys.argv[1]
if len(sys.argv) > 2:
    open(sys.argv[2], "w").write(str(os.getpid()))


def say(*words):
    print(time.monotonic_ns(), int(time.time() * 1000), *words, flush=True)


if how == "never-ready":
    time.sleep(600)
if how == "exit-before-ready":
    print("about to fail", file=sys.stderr, flush=True)
    sys.exit(4)
say("driver", "ok", "-", "ready")
if how == "ready-twice":
    say("driver", "ok", "-", "ready")
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
    if how == "grants-all":
        say(op, "invoke", ident)
        say(op, "ok", ident, ("token-" + ident) if op == "acquire" else "")
        continue
    if how == "exit-mid-run":
        sys.exit(5)
    if how == "unknown-id":
        say(op, "invoke", "nobody-sent-this")
    if how == "outcome-before-invoke":
        say(op, "ok", ident)
    if how == "garbage-mid-run":
        print("acquire? sure, why not", flush=True)
    say(op, "invoke", ident)
    say(op, "fail", ident)
