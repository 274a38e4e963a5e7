#!/usr/bin/env python3
"""Opens semsim's pages in headless Chromium and checks what a reader sees:

  check_pages.py SHOTS_DIR REPORT_HTML VARIANTS TIMELINE_HTML DENSE_TIMELINE_HTML

report.html: renders without console errors, the verdict table (one row per variant in VARIANTS,
comma-separated) is on the first screen, the contents links lead somewhere, the options are folded.
timeline.html: renders without console errors; ticks at round steps with a unit, no text cut at an
edge; each row label carries the client's clock offset; the wheel zooms (the visible range
shrinks), dragging pans, brushing the holders lane zooms to the range, "first over-admission"
jumps to the first episode. Screenshots of each page go to SHOTS_DIR.
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, find_chromium  # noqa: E402
from checks import check, verdict  # noqa: E402

WIDTH, HEIGHT = 1280, 800


def no_errors(browser, page_name):
    check(not browser.errors, '%s: no console errors or exceptions%s' % (
        page_name, '' if not browser.errors else ': ' + '; '.join(browser.errors[:5])))
    browser.errors.clear()


def check_report(browser, shots, path, variants):
    page = browser.new_page(WIDTH, HEIGHT)
    page.goto('file://' + path)
    no_errors(browser, 'report.html')
    box = page.evaluate("(() => { const t = document.getElementById('verdicts'); if (!t) return null;"
                        " const r = t.getBoundingClientRect(); return [r.top, r.bottom, t.tagName]; })()")
    check(box is not None and box[2] == 'TABLE', 'report.html: a verdict table id="verdicts"')
    if box:
        check(box[0] >= 0 and box[1] <= HEIGHT, 'report.html: the verdict table is on the first screen '
              '(%d..%d px of %d)' % (box[0], box[1], HEIGHT))
    rows = page.evaluate("[...document.querySelectorAll('#verdicts tr')].slice(1).map(r => r.cells[0].textContent.trim())")
    check(rows == variants, 'report.html: one verdict row per variant, in order: %s' % rows)
    first_chart = page.evaluate("(() => { const s = document.querySelector('svg'); return s ? s.getBoundingClientRect().top"
                                " + window.scrollY : null; })()")
    check(first_chart is not None and box and first_chart > box[1], 'report.html: the charts come after the verdicts')
    broken = page.evaluate("[...document.querySelectorAll('nav a')].map(a => a.getAttribute('href'))"
                           ".filter(h => !document.getElementById(h.slice(1)))")
    check(broken == [], 'report.html: every contents link has its target %s' % broken)
    check(page.evaluate("(() => { const d = document.querySelector('details'); return !!d && !d.open; })()"),
          'report.html: the run options are folded')
    widths = page.evaluate("[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width)")
    check(widths and min(widths) > 300, 'report.html: %d charts drawn, each wider than 300 px' % len(widths))
    page.screenshot(os.path.join(shots, 'report.png'))
    page.screenshot(os.path.join(shots, 'report-full.png'), full_page=True)


def view(page):
    return page.evaluate("[+document.getElementById('plot').dataset.viewStart, +document.getElementById('plot').dataset.viewEnd]")


def check_axis_and_labels(page, name):
    ticks = page.evaluate("[...document.querySelectorAll('#axis .tick text')].map(t => t.textContent)")
    parsed = [re.fullmatch(r'(-?\d+(?:\.\d+)?) (µs|ms|s)', t) for t in ticks]
    check(len(ticks) >= 3 and all(parsed), '%s: %d ticks, each with its unit: %s' % (name, len(ticks), ticks[:4]))
    if len(ticks) >= 3 and all(parsed):
        values = [float(m.group(1)) for m in parsed]
        step = values[1] - values[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        check(any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5)) and
              all(abs(values[i + 1] - values[i] - step) < 1e-6 * max(1, step) for i in range(len(values) - 1)),
              '%s: ticks at a round step (%g)' % (name, step))
    clipped = page.evaluate("""[...document.querySelectorAll('#axis text, #plot text, #labels text')].filter(t => {
        const b = t.getBBox(), w = +t.ownerSVGElement.getAttribute('width');
        return b.width > 0 && (b.x < -0.5 || b.x + b.width > w + 0.5); }).map(t => t.textContent)""")
    check(clipped == [], '%s: no text cut at the edges %s' % (name, clipped[:3]))


def check_timeline(browser, shots, path, name, steal):
    page = browser.new_page(WIDTH, HEIGHT)
    page.goto('file://' + path)
    no_errors(browser, name)
    check_axis_and_labels(page, name)
    labels = page.evaluate("[...document.querySelectorAll('#labels text, #plot text')].map(t => [...t.childNodes]"
                           ".filter(n => n.nodeType === 3).map(n => n.textContent).join(''))")
    offsets = [l for l in labels if re.fullmatch(r'[+\u2212]\d+\.\d{3} ms', l)]
    check(len(offsets) == page.evaluate('JSON.parse(document.getElementById("data").textContent).rows.length'),
          '%s: every row label carries its clock offset' % name)
    if steal:
        check('\u221210.000 ms' in labels, '%s: client 2 is labelled with its clock, \u221210.000 ms' % name)
    else:
        data_pauses = page.evaluate('JSON.parse(document.getElementById("data").textContent).rows.reduce((n, r) => n + r.pauses.length / 2, 0)')
        drawn = page.evaluate("[...document.querySelectorAll('#plot rect title')].filter(t => / paused \\[/.test(t.textContent)).length")
        check(data_pauses > 0 and drawn > 0, '%s: pauses are drawn (%d of %d, bars closer than a pixel merge)' % (name, drawn, data_pauses))
    start, end = view(page)
    plot = page.evaluate("(() => { const r = document.getElementById('plot').getBoundingClientRect(); return [r.left, r.top, r.width]; })()")
    px, py = plot[0] + plot[2] * 0.6, plot[1] + 8
    page.wheel(px, py, -600)
    z0, z1 = view(page)
    check(z1 - z0 < (end - start) * 0.5 and z0 >= start and z1 <= end,
          '%s: the wheel zooms in: %d..%d us -> %d..%d us' % (name, start, end, z0, z1))
    check(page.evaluate("document.getElementById('range').textContent").startswith('showing'),
          '%s: the visible range is said' % name)
    check_axis_and_labels(page, name + ' zoomed')
    page.drag(px, py, px - 200, py)
    p0, p1 = view(page)
    check(p0 > z0 and abs((p1 - p0) - (z1 - z0)) < 2, '%s: dragging pans: %d..%d us -> %d..%d us' % (name, z0, z1, p0, p1))
    page.click(*page.evaluate("(() => { const r = document.getElementById('all').getBoundingClientRect();"
                              " return [r.left + r.width / 2, r.top + r.height / 2]; })()"))
    check(view(page) == [0, end], '%s: "whole run" shows it all again' % name)
    lane = page.evaluate("(() => { const r = document.getElementById('axis').getBoundingClientRect(); return [r.left, r.top, r.width]; })()")
    page.drag(lane[0] + lane[2] * 0.4, lane[1] + 50, lane[0] + lane[2] * 0.6, lane[1] + 50)
    b0, b1 = view(page)
    check(b1 - b0 < (end - start) * 0.35 and b0 > 0, '%s: brushing the holders lane zooms to the range: %d..%d us' % (name, b0, b1))
    episodes = page.evaluate('JSON.parse(document.getElementById("data").textContent).episodes')
    if episodes:
        button = page.evaluate("(() => { const r = document.getElementById('first').getBoundingClientRect();"
                               " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        page.click(*button)
        f0, f1 = view(page)
        check(f0 <= episodes[0] <= f1 and f1 - f0 < end - start,
              '%s: "first over-admission" zooms to it (%d us in %d..%d us)' % (name, episodes[0], f0, f1))
        check(page.evaluate("document.getElementById('where').textContent").startswith('over-admission 1 of'),
              '%s: and says which it shows' % name)
    elif steal:
        check(False, '%s: the steal has an over-admission to jump to' % name)
    no_errors(browser, name + ' after zooming')
    page.screenshot(os.path.join(shots, name.replace('.html', '') + '.png'))


def main():
    shots, report, variants, timeline, dense = sys.argv[1:6]
    if not find_chromium():
        print('chromium not installed (./bootstrap test installs it): skipped')
        return 77
    os.makedirs(shots, exist_ok=True)
    with Browser() as browser:
        check_report(browser, shots, os.path.abspath(report), variants.split(','))
        check_timeline(browser, shots, os.path.abspath(timeline), 'timeline-steal.html', steal=True)
        check_timeline(browser, shots, os.path.abspath(dense), 'timeline-dense.html', steal=False)
    print('screenshots: ' + ', '.join(os.path.join(shots, f) for f in sorted(os.listdir(shots)) if f.endswith('.png')))
    return verdict()


if __name__ == '__main__':
    sys.exit(main())
