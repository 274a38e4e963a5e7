"""What the browser checks share: each check said on a line of its own, the failures kept for the
exit code (0 when every one held)."""
failures = []


def check(ok, what):
    print(('ok    ' if ok else 'FAIL  ') + what)
    if not ok:
        failures.append(what)
    return ok


def verdict():
    if failures:
        print('%d check(s) failed' % len(failures))
        return 1
    return 0
