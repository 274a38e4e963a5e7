#!/usr/bin/env python3
"""Hostile text in every text field semsim's pages show, and what a browser makes of it:

  hostile_pages.py history PLAIN_HISTORY HOSTILE_HISTORY [mode]
      writes PLAIN_HISTORY again with markup in every text field: the run rows' variant and
      reason, every identifier, and a note in every other row's detail (the details of Redis's
      faults are drawn on the timeline); with `mode`, in the run row's mode too (which is one of
      two words: analyze refuses it).
  hostile_pages.py name
      prints the markup a file or folder name can hold (no '/', no ','), for report.html.
  hostile_pages.py check TIMELINE_HTML REPORT_HTML [MASTERS_TIMELINE_HTML]
      opens the pages (MASTERS_TIMELINE_HTML: a run over several masters, its lanes drawn from
      the same hostile rows) in headless Chromium and checks that no markup of the data ran or became an
      element (document.title and window.xssRan untouched, no <img>, no script but the page's own,
      no on* attribute), that nothing was refused by the page's policy or thrown (console errors),
      and that the text is on the page as text.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, verdict  # noqa: E402

RAN = "document.title='XSS-RAN';window.xssRan=1"
# What breaks out of HTML text, an attribute, a script element, a comment, a JavaScript string.
PAYLOAD = ('<img src=x onerror="%s"> </script><script>%s</script> <svg onload="%s"> <!-- --> "\'& \u2028\u2029'
           % (RAN, RAN, RAN))
# A file name cannot hold '/', and a --variants list is split at ','.
NAME = "<img src=x onerror=\"document.title='XSS-RAN'\">&amp;'"


def field(tag):
    return tag + ' ' + PAYLOAD


def quoted(value):
    return '"' + value.replace('\\', '\\\\').replace('"', '\\"') + '"'


def with_key(detail, key, value):
    """detail with key=value (replaced if present), as KeyValues writes it."""
    tokens, out, i = [], [], 0
    # detail is written by semsim: its quoted values hold no unescaped quote.
    while i < len(detail):
        if detail[i] == ' ':
            i += 1
            continue
        j, inside = i, False
        while j < len(detail) and (inside or detail[j] != ' '):
            if detail[j] == '\\' and inside:
                j += 1
            elif detail[j] == '"':
                inside = not inside
            j += 1
        tokens.append(detail[i:j])
        i = j
    for t in tokens:
        if t.split('=', 1)[0] != key:
            out.append(t)
    out.append(key + '=' + quoted(value))
    return ' '.join(out)


def make_history(plain, hostile, mode):
    with open(plain, newline='', encoding='utf-8') as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    ids = {}
    for r in body:
        if r[col['op']] == 'run':
            d = r[col['detail']]
            if r[col['phase']] == 'info':
                d = with_key(d, 'variant', field('variant'))
                if mode:
                    d = with_key(d, 'mode', field('mode'))
            else:
                d = with_key(d, 'reason', field('reason'))
            r[col['detail']] = d
        else:
            r[col['detail']] = with_key(r[col['detail']], 'note', field(r[col['op']] + ' note'))
        if r[col['identifier']]:
            r[col['identifier']] = ids.setdefault(r[col['identifier']], field('id%d' % len(ids)))
    with open(hostile, 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerows([header] + body)


def nothing_ran(browser, page, name, scripts):
    check(page.evaluate("document.title") != 'XSS-RAN' and page.evaluate("typeof window.xssRan") == 'undefined',
          '%s: no script of the data ran (title %r)' % (name, page.evaluate("document.title")))
    check(page.evaluate("document.querySelectorAll('img, iframe, object, embed').length") == 0,
          '%s: no markup of the data became an element' % name)
    check(page.evaluate("document.querySelectorAll('script:not([type=\"application/json\"])').length") == scripts,
          '%s: %d script element(s), the page\'s own' % (name, scripts))
    handlers = page.evaluate("[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
                             ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))")
    check(handlers == [], '%s: no element has an on* attribute %s' % (name, handlers[:3]))
    policy = page.evaluate("(document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]') || {}).content || ''")
    check("script-src" in policy and "'unsafe-inline'" not in policy,
          '%s: a Content-Security-Policy without unsafe-inline: %s' % (name, policy[:60]))
    check(not browser.errors, '%s: no console errors, no refusal by the policy%s' % (
        name, '' if not browser.errors else ': ' + '; '.join(browser.errors[:3])))
    browser.errors.clear()


def check_pages(timeline, report, masters=None):
    from cdp import Browser, find_chromium
    if not find_chromium():
        print('chromium not installed (./bootstrap test installs it): skipped')
        return 77
    with Browser() as browser:
        page = browser.new_page(1280, 800)
        page.goto('file://' + os.path.abspath(timeline))
        nothing_ran(browser, page, 'timeline.html', 1)
        check(page.evaluate("document.getElementById('title').textContent").startswith(field('variant')),
              'timeline.html: the variant is the heading, as text')
        titles = page.evaluate("[...document.querySelectorAll('#plot title, #axis title, #labels title')].map(t => t.textContent)")
        # As history.csv holds it: the note's " as \".
        check(any(field('redis_pause note').split('"')[0] in t for t in titles),
              'timeline.html: a fault\'s detail is its mark\'s hover text, as text')
        # Zoomed and panned, the rows are drawn again from the same data.
        page.evaluate("document.getElementById('zin').click()")
        page.settle()
        nothing_ran(browser, page, 'timeline.html zoomed', 1)

        if masters:
            page = browser.new_page(1280, 800)
            page.goto('file://' + os.path.abspath(masters))
            nothing_ran(browser, page, 'timeline.html over masters', 1)
            lanes = page.evaluate("[...document.querySelectorAll('#labels text')].map(t => t.textContent)"
                                  ".filter(t => t.startsWith('master '))")
            check(lanes == ['master %d' % m for m in range(1, 6)], 'timeline.html over masters: its 5 lanes %s' % lanes)
            titles = page.evaluate("[...document.querySelectorAll('#bars title')].map(t => t.textContent)")
            check(any(t.startswith('master 3: down') and field('redis_restart note').split('"')[0] in t for t in titles),
                  "timeline.html over masters: a master's restart and its detail on its lane, as text")
            check(any(t.startswith('master 1 voted for client 1') for t in titles),
                  'timeline.html over masters: the votes, read past the hostile note')
            page.evaluate("document.getElementById('zin').click()")
            page.settle()
            nothing_ran(browser, page, 'timeline.html over masters zoomed', 1)

        page = browser.new_page(1280, 800)
        page.goto('file://' + os.path.abspath(report))
        nothing_ran(browser, page, 'report.html', 0)
        rows = page.evaluate("[...document.querySelectorAll('#verdicts tr')].slice(1).map(r => r.cells[0].textContent)")
        check(any(NAME in r for r in rows), 'report.html: the hostile variant has its verdict row, as text %s' % rows)
        # Shell-quoted there: its ' as '\''.
        check(NAME.split("'")[0] in page.evaluate("document.querySelector('pre').textContent"),
              'report.html: the command that reproduces the sweep names it, as text')
        legends = page.evaluate("[...document.querySelectorAll('svg text')].map(t => t.textContent)")
        check(any(NAME in t for t in legends), "report.html: the charts' legends name it, as text")
    return verdict()


def main():
    if sys.argv[1] == 'history':
        make_history(sys.argv[2], sys.argv[3], sys.argv[4:] == ['mode'])
        return 0
    if sys.argv[1] == 'name':
        print(NAME)
        return 0
    return check_pages(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)


if __name__ == '__main__':
    sys.exit(main())
