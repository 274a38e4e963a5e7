#!/usr/bin/env python3
"""timeline.html of a run over several masters, and of 1,000 and 2,600 clients, as a reader sees them:

  check_masters_and_scale.py REDLOCK_TIMELINE THOUSAND_TIMELINE WITNESS_CLIENTS \
      CLOCKS_TIMELINE BEYOND_TIMELINE BEYOND_WITNESS_CLIENTS

REDLOCK_TIMELINE (scenarios/redlock-clock-jump.ini, redlock): a lane per master named "master 1" to
"master 5"; on them the votes of each grant (client 1 on masters 1, 2, 3; client 2 on 3, 4, 5),
master 3's clock jump, client 1's cut from masters 4 and 5; nothing thrown.
THOUSAND_TIMELINE: every client of the run has its row, each of WITNESS_CLIENTS (comma-separated:
the first over-admission's witness) among them and drawn, outlined, once scrolled into sight with
the first episode shown; "next" reaches every episode (as many as the run counted); a redraw of
the whole run, zoomed, and scrolled, under 200 ms (the best of 5).
CLOCKS_TIMELINE (redlock over 3 masters, master 2 5 ms ahead at 200 ppm, master 3 8 ms behind): each
master's clock drawn on its lane, said in words with its skew and drift; master 1's (true time) not.
BEYOND_TIMELINE (2,600 clients): rows for the first 2,000 clients and for each client of
BEYOND_WITNESS_CLIENTS beyond them, each witness drawn as such once in sight, the page saying so;
every episode reachable, a redraw under 200 ms.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, find_chromium  # noqa: E402
from checks import check, verdict  # noqa: E402



def titles(page, selector):
    return page.evaluate("[...document.querySelectorAll('%s title')].map(t => t.textContent)" % selector)


def check_masters(browser, path):
    page = browser.new_page(1280, 800)
    page.goto('file://' + path)
    check(not browser.errors, 'redlock: no console errors %s' % browser.errors[:3])
    names = page.evaluate("[...document.querySelectorAll('#labels text')].map(t => t.textContent)")
    check([n for n in names if n.startswith('master')] == ['master %d' % m for m in range(1, 6)],
          'redlock: a lane per master, "master 1" to "master 5": %s' % [n for n in names if n.startswith('master')])
    marks = titles(page, '#bars')
    votes = {(m, c) for m in range(1, 6) for c in (1, 2)
             if any(t.startswith('master %d voted for client %d\'s permit' % (m, c)) for t in marks)}
    check(votes == {(1, 1), (2, 1), (3, 1), (3, 2), (4, 2), (5, 2)},
          'redlock: the votes of each grant, client 1 on masters 1-3, client 2 on 3-5: %s' % sorted(votes))
    check(any(t.startswith("master 3's clock jumped +9500.000 ms at 1000.000 ms") for t in marks),
          "redlock: master 3's clock jump on its lane")
    check(page.evaluate("[...document.querySelectorAll('#bars text')].some(t => t.textContent === 'clock +9.5 s')"),
          'redlock: the jump is said on the lane, "clock +9.5 s"')
    check(all(any(t.startswith('master %d: cut from client 1 [0.000 ms, 100.000 ms)' % m) for t in marks) for m in (4, 5)),
          'redlock: client 1 cut from masters 4 and 5 for its first 100 ms')
    check(not any(t.startswith('Redis: server_jump') for t in marks), "redlock: a master's jump is not drawn across the clients' rows")
    browser.errors.clear()


def check_masters_clocks(browser, path):
    page = browser.new_page(1280, 800)
    page.goto('file://' + path)
    check(not browser.errors, 'clocks: no console errors %s' % browser.errors[:3])
    lines = page.evaluate("[...document.querySelectorAll('#bars polyline title')].map(t => t.textContent)")
    check(any(t.startswith("master 2's clock against true time: +5.000 ms at the start, drifting +200 ppm;") for t in lines),
          "clocks: master 2's clock (+5 ms, +200 ppm) drawn on its lane: %s" % lines)
    check(any(t.startswith("master 3's clock against true time: \u22128.000 ms at the start, no drift;") for t in lines),
          "clocks: master 3's clock (-8 ms) drawn on its lane")
    check(not any(t.startswith("master 1's clock") for t in lines), 'clocks: master 1, on true time, has no clock line')
    words = page.evaluate("[...document.querySelectorAll('#bars text')].map(t => t.textContent)")
    check('clock +5.000 ms, +200 ppm' in words and 'clock \u22128.000 ms' in words,
          'clocks: the skews and the drift said on the lanes: %s' % [w for w in words if w.startswith('clock')])
    browser.errors.clear()


def check_thousand(browser, path, witness, clients=1000, drawn=1000):
    name = '{:,} clients'.format(clients)
    page = browser.new_page(1280, 800)
    page.goto('file://' + path)
    check(not browser.errors, '%s: no console errors %s' % (name, browser.errors[:3]))
    labelled = set(page.evaluate("[...document.querySelectorAll('#labels text')].map(t => t.textContent)"
                                 ".filter(t => /^client \\d+$/.test(t)).map(t => +t.slice(7))"))
    beyond = page.evaluate('D.witness_rows')
    hidden = page.evaluate('D.hidden')
    check(len(labelled) == drawn + beyond and (hidden == 0) == (clients == drawn),
          '%s: the first %d have their row, and %d beyond them (%d rows, %d left out)' % (name, drawn, beyond, len(labelled), hidden))
    missing = [c for c in witness if c not in labelled]
    check(not missing, '%s: the %d clients of the first witness are on the page%s' % (
        name, len(witness), '' if not missing else ', not %s' % missing[:5]))
    if clients > drawn:
        first = set(page.evaluate('D.rows.map(r => r.id)')[:drawn])
        past = [c for c in witness if c not in first]
        check(len(past) > 0 and beyond > 0, '%s: the witness reaches past the first %d rows (%d of its clients)' % (name, drawn, len(past)))
        check('that a witness names' in page.evaluate("document.getElementById('notes').textContent"),
              '%s: the page says its rows beyond the first %d are a witness\'s' % (name, drawn))
    # Show the first episode, then bring each witness's row into sight: its hold is drawn, outlined.
    page.click(*page.evaluate("(() => { const r = document.getElementById('first').getBoundingClientRect();"
                              " return [r.left + r.width / 2, r.top + r.height / 2]; })()"))
    undrawn = []
    for c in witness:
        drawn = page.evaluate("""(() => {
          const i = D.rows.findIndex(r => r.id === %d);
          window.scrollTo(0, plotSvg.getBoundingClientRect().top + window.scrollY + MH + i * ROW - 300);
          render();
          return [...document.querySelectorAll('#bars title')].some(t => t.textContent.startsWith('client %d: holds') &&
                                                                        t.textContent.includes('named in the witness'));
        })()""" % (c, c))
        if not drawn:
            undrawn.append(c)
    check(not undrawn, '%s: each witness hold is drawn as such once its row is in sight%s' % (name,
        '' if not undrawn else ', not for %s' % undrawn[:5]))
    page.evaluate('window.scrollTo(0, 0)')
    # Every episode reachable with "next", in order, each in the view it jumps to.
    reach = page.evaluate("""(() => {
      goTo(0);
      let n = 1, inView = 0;
      const next = document.getElementById('next');
      for (;;) {
        if (v0 <= EP[current][0] && EP[current][0] <= v1) inView++;
        if (next.disabled && current === EP.length - 1) break;
        if (current !== n - 1) break;
        goTo(current + 1); n++;
        if (n > EP.length) break;
        render();
      }
      return [n, inView, EP.length, D.episode_count];
    })()""")
    check(reach[0] == reach[2] == reach[3] and reach[1] == reach[2],
          '%s: "next" reaches every episode, each in its view: %d of %d (%d counted)' % (name, reach[0], reach[2], reach[3]))
    best = page.evaluate("""(() => {
      const time = f => { const t0 = performance.now(); f(); render(); document.body.getBoundingClientRect(); return performance.now() - t0; };
      let best = [1e9, 1e9, 1e9];
      for (let i = 0; i < 5; i++) {
        window.scrollTo(0, 0);
        best[0] = Math.min(best[0], time(() => setView(0, D.span)));
        best[1] = Math.min(best[1], time(() => setView(D.span * 0.4, D.span * 0.45)));
        window.scrollTo(0, 5000);
        best[2] = Math.min(best[2], time(() => setView(0, D.span)));
      }
      return best.map(Math.round);
    })()""")
    check(max(best) < 200, '%s: a redraw under 200 ms (best of 5: whole run %d ms, zoomed %d ms, scrolled %d ms)' % ((name,) + tuple(best)))
    check(not browser.errors, '%s: no console errors after it all %s' % (name, browser.errors[:3]))


def main():
    redlock, thousand, witness, clocks, beyond, beyond_witness = sys.argv[1:7]
    if not find_chromium():
        print('chromium not installed (./bootstrap test installs it): skipped')
        return 77
    with Browser() as browser:
        check_masters(browser, os.path.abspath(redlock))
        check_thousand(browser, os.path.abspath(thousand), [int(c) for c in witness.split(',')])
        check_masters_clocks(browser, os.path.abspath(clocks))
        check_thousand(browser, os.path.abspath(beyond), [int(c) for c in beyond_witness.split(',')], clients=2600, drawn=2000)
    return verdict()


if __name__ == '__main__':
    sys.exit(main())
