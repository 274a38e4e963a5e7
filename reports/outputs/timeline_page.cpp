#include "reports/outputs/timeline_page.h"

#include "reports/history/text_format.h"
#include "reports/outputs/page_safety.h"

namespace semsim {

namespace {

constexpr const char* kStyle = R"CSS(
body{font:14px/1.4 system-ui,sans-serif;color:#1a1a1a;margin:0}
header{padding:12px 16px 4px}
h1{font-size:20px;margin:0 0 2px}
.sum{margin:2px 0 8px}
.invalid{color:#a11}.unknown{color:#8a5a00}.valid{color:#176b2c}
.controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:4px 0}
button{font:13px system-ui,sans-serif;padding:4px 10px;border:1px solid #777;border-radius:4px;background:#f4f4f4;cursor:pointer}
button:hover{background:#e4e8f0}button:disabled{color:#999;border-color:#bbb;cursor:default}
button.over{border-color:#a11;color:#8e1b10;font-weight:600}button.over:disabled{color:#b99;border-color:#dbb}
#range{margin-left:10px;font-variant-numeric:tabular-nums}
#where{margin-left:10px;color:#8e1b10}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0 4px;font-size:13px;align-items:center}
.legend span{display:inline-flex;align-items:center}
.legend svg{vertical-align:middle;margin-right:4px}
#top{position:sticky;top:0;background:#fff;z-index:2;border-bottom:1px solid #ccc}
#rowsbox{padding:0 0 8px;position:relative}#labels{position:absolute;left:0;top:0}
svg text{font:11px ui-monospace,monospace;fill:#1a1a1a}
svg .tick text{font:11px system-ui,sans-serif}
svg .lane-label{font:11px system-ui,sans-serif;fill:#333}
#plot{cursor:grab}#plot.dragging{cursor:grabbing}#axis{cursor:crosshair}
.notes{padding:0 16px;color:#333;font-size:13px}
kbd{font:12px ui-monospace,monospace;border:1px solid #aaa;border-radius:3px;padding:0 3px}
.defs{position:absolute}.help{margin:2px 0 6px;font-size:12px;color:#444}
@media print{.controls,.help{display:none}#top{position:static}}
)CSS";

constexpr const char* kPatterns = R"SVG(<svg width="0" height="0" class="defs"><defs>
<pattern id="overrun" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2.5" height="6" fill="#fff" fill-opacity="0.9"/></pattern>
<pattern id="fault" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#a04e00" fill-opacity="0.08"/><rect width="2" height="8" fill="#a04e00" fill-opacity="0.55"/></pattern>
</defs></svg>)SVG";

constexpr const char* kScript = R"JS(
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const NS = 'http://www.w3.org/2000/svg';
const ROW = D.rows.length > 60 ? 13 : 17, LANE = 64, AXIS = 30, SAMPLES = D.stale.length ? 10 : 0, RIGHT = 28;
// Several masters (Redlock): a lane each above the clients, MLANE high.
const MLANE = 48, MH = D.masters ? D.masters * MLANE + 10 : 0, H_ROWS = MH + D.rows.length * ROW + 6;
const axisSvg = document.getElementById('axis'), plotSvg = document.getElementById('plot');
const labelChars = Math.max(...D.rows.map(r => ('client ' + r.id).length + offsetText(r.offset_ms).length + 2), 22);
const L = Math.round(labelChars * 6.8 + 14);
const MIN_SPAN = Math.min(20, D.span);  // µs: the history's resolution is 1 µs
let v0 = 0, v1 = D.span, W = 800, current = -1, drag = null, brush = null;

function offsetText(ms) { return (ms >= 0 ? '+' : '\u2212') + Math.abs(ms).toFixed(3) + ' ms'; }
function ms(us) { return (us / 1000).toFixed(3) + ' ms'; }
function x(t) { return L + (t - v0) * (W - L - RIGHT) / (v1 - v0); }
function tAt(px) { return v0 + (px - L) * (v1 - v0) / (W - L - RIGHT); }
function clampX(px) { return Math.max(L, Math.min(W - RIGHT, px)); }

// A time in the unit that suits a view `span` long (s from 2 s, ms from 2 ms, else µs), with as
// many decimals as a tick `step` needs.
function unitFor(span) { return span >= 2e6 ? [1e6, 's'] : span >= 2e3 ? [1e3, 'ms'] : [1, '\u00b5s']; }
function fmtIn(t, step, span) {
  const [div, unit] = unitFor(span);
  const dec = Math.max(0, -Math.floor(Math.log10(step / div) + 1e-9));
  return (t / div).toFixed(Math.min(dec, 6)) + ' ' + unit;
}
// Round tick steps: 1, 2 or 5 x 10^k µs, about one per `px` pixels.
function niceStep(span, px) {
  const want = span * px / Math.max(1, W - L - RIGHT);
  const p = Math.pow(10, Math.floor(Math.log10(want)));
  for (const m of [1, 2, 5, 10]) if (m * p >= want) return Math.max(1, m * p);
  return 10 * p;
}
function lowerBound(arr, stride, value) {  // first index i (of stride) with arr[i*stride] >= value
  let lo = 0, hi = arr.length / stride;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid * stride] < value) lo = mid + 1; else hi = mid; }
  return lo;
}
// An SVG element with its attributes, its hover text (a <title>) and its text: the history's words
// reach the page only as attribute values and text nodes, never as markup.
function el(tag, attrs, title, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (title) { const t = document.createElementNS(NS, 'title'); t.textContent = title; e.append(t); }
  if (text !== undefined) e.append(String(text));
  return e;
}
function rect(x0, y, w, h, attrs, title) {
  return el('rect', Object.assign({x: x0.toFixed(1), y, width: Math.max(w, 0).toFixed(1), height: h}, attrs), title);
}

function episodes() {  // [a, b, peak] triples
  const out = [];
  for (let i = 0; i < D.episodes.length; i += 3) out.push([D.episodes[i], D.episodes[i + 1], D.episodes[i + 2]]);
  return out;
}
const EP = episodes(), EPA = EP.map(e => e[0]);

function drawAxis() {
  const plotW = W - L - RIGHT, span = v1 - v0, H = AXIS + SAMPLES + LANE + 10;
  const s = document.createDocumentFragment();
  // Ticks at round steps, labels with their unit, none cut at either edge.
  const step = niceStep(span, 110);
  for (let t = Math.ceil(v0 / step) * step; t <= v1 + 1e-6; t += step) {
    const px = x(t), label = fmtIn(t, step, span), w = label.length * 6.3;
    let anchor = 'middle', tx = px;
    if (px + w / 2 > W - 2) { anchor = 'end'; tx = W - 2; }
    if (px - w / 2 < L - 4 && anchor === 'middle') { anchor = 'start'; tx = Math.max(px, L - 4); }
    const g = el('g', {class: 'tick'});
    g.append(el('line', {x1: px.toFixed(1), y1: AXIS - 5, x2: px.toFixed(1), y2: H, stroke: '#bbb'}),
             el('text', {x: tx.toFixed(1), y: AXIS - 9, 'text-anchor': anchor}, '', label));
    s.append(g);
  }
  s.append(el('text', {class: 'lane-label', x: 6, y: AXIS - 9}, '', 'true time'));
  // The holders lane: the most holders per pixel, red above the limit.
  const top = AXIS + SAMPLES + 4, maxN = Math.max(D.max_holders, D.limit + 1, 1), yOf = n => top + LANE - n * LANE / maxN;
  const cols = new Int32Array(Math.max(1, Math.ceil(plotW))).fill(-1);
  const hb = D.holders, nb = hb.length / 2;
  for (let i = Math.max(0, lowerBound(hb, 2, v0) - 1); i < nb && hb[2 * i] < v1; i++) {
    const a = hb[2 * i], b = i + 1 < nb ? hb[2 * i + 2] : D.span, n = hb[2 * i + 1];
    const c0 = Math.max(0, Math.floor(x(a) - L)), c1 = Math.min(cols.length, Math.max(c0 + 1, Math.ceil(x(b) - L)));
    for (let c = c0; c < c1; c++) if (n > cols[c]) cols[c] = n;
  }
  // Blue up to the limit as one path; red above it a mark each with its count, or one path when
  // there are too many to hover apart.
  let blue = '';
  const reds = [];
  for (let c = 0; c < cols.length;) {
    let e = c + 1;
    while (e < cols.length && cols[e] === cols[c]) e++;
    const n = cols[c];
    if (n > 0) {
      const under = Math.min(n, D.limit);
      blue += 'M' + (L + c) + ',' + yOf(under).toFixed(1) + 'h' + (e - c) + 'V' + (top + LANE) + 'h' + (c - e) + 'z';
      if (n > D.limit) reds.push([c, e, n]);
    }
    c = e;
  }
  if (blue) s.append(el('path', {d: blue, fill: '#1f4e9a'}));
  if (reds.length > 200)
    s.append(el('path', {d: reds.map(([c, e, n]) => 'M' + (L + c) + ',' + yOf(n).toFixed(1) + 'h' + (e - c) + 'V' + yOf(D.limit).toFixed(1) +
                                                  'h' + (c - e) + 'z').join(''), fill: '#c0392b'},
                'more than the limit (' + D.limit + ') held: zoom in for the count at each moment'));
  else for (const [c, e, n] of reds) s.append(rect(L + c, yOf(n), e - c, yOf(D.limit) - yOf(n), {fill: '#c0392b'}, n + ' holders, limit ' + D.limit));
  s.append(el('line', {x1: L, x2: W - RIGHT, y1: yOf(D.limit), y2: yOf(D.limit), stroke: '#000', 'stroke-dasharray': '5,3',
                       'stroke-width': 1.5}),
           el('text', {class: 'lane-label', x: 6, y: top + 12}, '', 'holders (max ' + D.max_holders + ')'),
           el('text', {class: 'lane-label', x: 6, y: yOf(D.limit) + 4}, '', 'limit ' + D.limit + ' - - -'));
  // Over-admission episodes on the lane: at least 3 px wide, so that a 10 ms steal in a long run
  // shows; those that would touch are one mark, which says how many it stands for.
  let mark = null;
  const putMark = () => {
    if (mark) s.append(rect(mark.x0, top + LANE + 1, mark.x1 - mark.x0, 5, {fill: '#c0392b'}, mark.n > 1
      ? mark.n + ' over-admissions within [' + ms(mark.a) + ', ' + ms(mark.b) + '), up to ' + mark.peak + ' holders'
      : 'over-admission [' + ms(mark.a) + ', ' + ms(mark.b) + '), ' + mark.peak + ' holders'));
    mark = null;
  };
  for (let e = Math.max(0, lowerBound(EPA, 1, v0) - 1); e < EP.length && EP[e][0] <= v1; e++) {
    const [a, b, peak] = EP[e];
    if (b < v0) continue;
    const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 3);
    if (mark && x0 <= mark.x1 + 0.5) { mark.x1 = Math.max(mark.x1, x1); mark.b = b; mark.n++; mark.peak = Math.max(mark.peak, peak); continue; }
    putMark();
    mark = {x0, x1, a, b, peak, n: 1};
  }
  putMark();
  // Samples where clients believed in permits Redis no longer counted; those within 4 px one mark.
  for (let i = lowerBound(D.stale, 2, v0) * 2; i < D.stale.length && D.stale[i] <= v1;) {
    const px = x(D.stale[i]);
    let j = i + 2, most = D.stale[i + 1];
    while (j < D.stale.length && D.stale[j] <= v1 && x(D.stale[j]) - px < 4) { most = Math.max(most, D.stale[j + 1]); j += 2; }
    const k = (j - i) / 2;
    s.append(el('path', {d: 'M' + (px - 4).toFixed(1) + ',' + (AXIS + 2) + 'h8l-4,7z', fill: '#a04e00'}, k > 1
      ? k + ' samples within [' + ms(D.stale[i]) + ', ' + ms(D.stale[j - 2]) + ']: up to ' + most + ' client(s) believed in a permit Redis no longer counted'
      : 'sample at ' + ms(D.stale[i]) + ': ' + D.stale[i + 1] + ' client(s) believed in a permit Redis no longer counted'));
    i = j;
  }
  s.append(drawFaults(top - 2, H, true));
  if (brush) s.append(rect(Math.min(brush.x0, brush.x1), top, Math.abs(brush.x1 - brush.x0), LANE,
                           {fill: '#1f4e9a', 'fill-opacity': 0.18, stroke: '#1f4e9a'}));
  axisSvg.setAttribute('width', W);
  axisSvg.setAttribute('height', H);
  axisSvg.replaceChildren(s);
}

// Redis's faults across the rows: spans hatched, instants as lines; named on the lane.
function drawFaults(y0, y1, named) {
  const s = document.createDocumentFragment();
  for (const [kind, a, b, detail] of D.server) {
    if (b < v0 || a > v1) continue;
    const what = kind + ' at ' + ms(kind === 'failover' ? b : a) + (detail ? ' (' + detail + ')' : '');
    if (b > a) {
      const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 2);
      s.append(rect(x0, y0, x1 - x0, y1 - y0, {fill: 'url(#fault)', stroke: '#a04e00', 'stroke-width': 1}, 'Redis: ' + what +
                    (kind === 'failover' ? '; hatched: the writes it lost' : '')));
    }
    const px = x(kind === 'failover' ? b : a);
    if (px >= L && px <= W - RIGHT)
      s.append(el('line', {x1: px.toFixed(1), x2: px.toFixed(1), y1: y0, y2: y1, stroke: '#a04e00', 'stroke-width': 2}, 'Redis: ' + what));
    if (named && px >= L - 40 && px <= W - RIGHT)
      s.append(el('text', {class: 'lane-label', x: (clampX(px) + 3).toFixed(1), y: y0 + 22, fill: '#a04e00'}, '', kind));
  }
  return s;
}

// The labels of every row and master lane, drawn once: every client of the run is named on the
// page (a witness is never off it), while the bars are drawn for the rows in sight only. The labels
// are an SVG of their own, over the plot's left margin: a redraw of the bars lays out the bars alone.
const labels = document.getElementById('labels'), bars = el('g', {id: 'bars'});
(function () {
  for (let m = 1; m <= D.masters; m++)
    labels.append(el('text', {x: 6, y: (m - 1) * MLANE + MLANE / 2 + 6, 'font-weight': 600}, '', 'master ' + m));
  D.rows.forEach((r, i) => {
    const y = MH + i * ROW + 2, bh = ROW - 4;
    labels.append(el('text', {x: 6, y: y + bh - 2}, '', 'client ' + r.id),
                  el('text', {x: L - 8, y: y + bh - 2, 'text-anchor': 'end', fill: '#444'},
                     'mean clock offset at its acquires (client - true time)', offsetText(r.offset_ms)));
  });
  plotSvg.setAttribute('height', H_ROWS);
  plotSvg.append(bars);
  labels.setAttribute('width', L);
  labels.setAttribute('height', H_ROWS);
})();

// The rows in sight (and a screen around them): [first, end).
function rowsInSight() {
  const top = plotSvg.getBoundingClientRect().top, margin = window.innerHeight / 2;
  const y0 = -top - margin - MH, y1 = window.innerHeight - top + margin - MH;
  return [Math.max(0, Math.floor(y0 / ROW)), Math.min(D.rows.length, Math.ceil(y1 / ROW) + 1)];
}

const PALETTE = ['#1f4e9a', '#2a7d4f', '#b4531f', '#6a4c93', '#8d6e1f', '#1f7a8c'];
function byText(detail) { const m = /by_us=(-?\d+)/.exec(detail); return m ? +m[1] : 0; }
function signedMs(us) { return (us >= 0 ? '+' : '\u2212') + ms(Math.abs(us)); }
// Each master's clock against true time: the run row's skew and drift (master_clocks), and its
// jumps; what it reads minus true time at page time t. One scale for every lane: the largest offset.
const MCLOCK = Array.from({length: D.masters}, (_, i) => {
  const c = D.master_clocks[i] || [0, 0];
  const jumps = D.master_marks.filter(k => k[0] === i + 1 && k[1] === 'server_jump').map(k => [k[2], byText(k[4])]);
  return {skew: c[0], drift: c[1], jumps, moves: c[0] !== 0 || c[1] !== 0 || jumps.length > 0};
});
function clockAt(c, t) {
  let o = c.skew + c.drift * 1e-6 * (t + D.start_us);
  for (const [a, by] of c.jumps) if (a <= t) o += by;
  return o;
}
const MCLOCK_MAX = Math.max(1, ...MCLOCK.flatMap(c => [0, D.span, ...c.jumps.map(j => j[0])].flatMap(
  t => [Math.abs(clockAt(c, t)), Math.abs(clockAt(c, t - 1))])));
// Master m's clock on its lane: a line, above the middle where it runs ahead of true time, steps at
// its jumps; its skew and drift said in words at the lane's right end.
function drawMasterClock(s, m, y, h, name) {
  const c = MCLOCK[m - 1];
  if (!c.moves) return;
  const mid = y + h / 2, yOf = t => (mid - clockAt(c, t) / MCLOCK_MAX * (h / 2 - 3)).toFixed(1);
  const pts = [];
  const cuts = c.jumps.map(j => j[0]).filter(a => a > v0 && a < v1).sort((p, q) => p - q);
  let from = v0;
  for (const a of cuts) { pts.push(x(from).toFixed(1) + ',' + yOf(from), x(a).toFixed(1) + ',' + yOf(a - 1)); from = a; }
  pts.push(x(from).toFixed(1) + ',' + yOf(from), x(v1).toFixed(1) + ',' + yOf(v1));
  const drift = c.drift ? (c.drift > 0 ? '+' : '\u2212') + Math.abs(c.drift) + ' ppm' : '';
  const said = name + '\'s clock against true time: ' + signedMs(c.skew) + ' at the start' +
    (drift ? ', drifting ' + drift : ', no drift') + (c.jumps.length ? ', ' + c.jumps.length + ' jump' + (c.jumps.length > 1 ? 's' : '') : '') +
    '; ' + signedMs(clockAt(c, D.span)) + ' at the end of the run (up: ahead of true time)';
  s.append(el('polyline', {points: pts.join(' '), fill: 'none', stroke: '#7b3f9e', 'stroke-width': 1.5, 'stroke-dasharray': '5,2'}, said));
  if (c.skew || c.drift)
    s.append(el('text', {x: (W - RIGHT - 4).toFixed(1), y: y + h - 2, 'text-anchor': 'end', fill: '#5b2a7e'}, '',
                'clock ' + signedMs(c.skew) + (drift ? ', ' + drift : '')));
}
// Each master's lane: up unless marked; down (restarted, back at b), paused, its failover's lost
// writes, its clock's jumps, the clients cut from it; and the permits it voted for, stacked.
function drawMasters(s) {
  if (!D.masters) return;
  const votes = Array.from({length: D.masters}, () => []);
  D.rows.forEach(r => {
    const h = r.holds, n = h.length / 5;
    for (let k = Math.max(0, lowerBound(h, 5, v0) - 1); k < n && h[5 * k] < v1; k++) {
      const a = h[5 * k], b = h[5 * k + 1], bits = h[5 * k + 3] >> 4;
      if (b < v0 || !bits) continue;
      for (let m = 0; m < D.masters; m++) if (bits & (1 << m)) votes[m].push([a, b, r.id, h[5 * k + 4]]);
    }
  });
  for (let m = 1; m <= D.masters; m++) {
    const y = (m - 1) * MLANE + 2, h = MLANE - 4, name = 'master ' + m;
    s.append(rect(L, y, W - RIGHT - L, h, {fill: '#eef6ef', stroke: '#cfe3d3'}, name + ': up (where nothing else is marked)'));
    // Votes: each permit it voted for, from the grant to the end of the hold, in the first free slot.
    // Bands: the marks' words on top, the votes in the middle, the cuts at the bottom.
    const slots = [], list = votes[m - 1].sort((p, q) => p[0] - q[0]), vh = h - 21, vy = y + 12;
    for (const [a, b] of list) {
      let k = slots.findIndex(end => end <= a);
      if (k < 0) { k = slots.length; slots.push(b); } else slots[k] = b;
    }
    const depth = Math.max(1, Math.min(slots.length, 4)), sh = vh / depth;
    slots.length = 0;
    for (const [a, b, client, count] of list) {
      let k = slots.findIndex(end => end <= a);
      if (k < 0) { k = slots.length; slots.push(b); } else slots[k] = b;
      k = Math.min(k, depth - 1);
      const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 1.5), yy = vy + k * sh;
      s.append(rect(x0, yy, x1 - x0, sh - 1, {fill: PALETTE[client % PALETTE.length], 'fill-opacity': 0.8},
                    name + ' voted for client ' + client + (count > 1 ? '\'s permits (' + count + ' holds) within [' : '\'s permit, held [') +
                    ms(a) + ', ' + ms(b) + ')'));
      if (x1 - x0 > 60 && sh >= 10)
        s.append(el('text', {x: (x0 + 3).toFixed(1), y: (yy + sh / 2 + 3.5).toFixed(1), fill: '#fff'}, '', 'client ' + client));
    }
    for (const [mm, kind, a, b, detail] of D.master_marks) {
      if (mm !== m || b < v0 || a > v1) continue;
      const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 2), inside = x1 - x0 > 50;
      const said = detail ? ' (' + detail + ')' : '';
      if (kind === 'cut') {
        s.append(rect(x0, y + h - 8, x1 - x0, 7, {fill: '#e8912d', 'fill-opacity': 0.5, stroke: '#b4531f', 'stroke-dasharray': '3,2'},
                      name + ': cut from ' + detail + ' [' + ms(a) + ', ' + ms(b) + '): messages either way lost'));
        if (inside) s.append(el('text', {x: (x0 + 3).toFixed(1), y: y + 10, fill: '#8a3d0c'}, '', 'cut from ' + detail));
      } else if (kind === 'redis_restart') {
        const empty = /lost_since_us=|persistence=none/.test(detail);
        if (b > a) {
          s.append(rect(x0, y, x1 - x0, h, {fill: '#555', 'fill-opacity': 0.45}, name + ': down [' + ms(a) + ', ' + ms(b) + ')' + said));
          if (inside) s.append(el('text', {x: (x0 + 3).toFixed(1), y: y + 11, fill: '#000'}, '', 'down'));
        }
        const px = x(b);
        if (px >= L && px <= W - RIGHT) {
          s.append(el('line', {x1: px.toFixed(1), x2: px.toFixed(1), y1: y - 1, y2: y + h + 1, stroke: '#000', 'stroke-width': 2.5},
                      name + ': restarted at ' + ms(b) + (empty ? ', empty: without the writes it had lost' : '') + said));
          s.append(el('text', {x: (Math.min(px, W - RIGHT - 100) + 3).toFixed(1), y: y + 11, fill: '#000'}, '', empty ? 'restarted empty' : 'restarted'));
        }
      } else if (kind === 'server_jump') {
        const px = x(a), by = byText(detail);
        if (px < L || px > W - RIGHT) continue;
        s.append(el('path', {d: 'M' + (px - 6).toFixed(1) + ',' + (y + h) + 'h12l-6,' + (-h) + 'z', fill: '#7b3f9e'},
                    name + '\'s clock jumped ' + (by >= 0 ? '+' : '') + ms(by) + ' at ' + ms(a) + ': its keys\' expiries moved by as much'));
        s.append(el('text', {x: (Math.min(px, W - RIGHT - 110) + 8).toFixed(1), y: y + 11, fill: '#5b2a7e'}, '',
                    'clock ' + (by >= 0 ? '+' : '\u2212') + fmtIn(Math.abs(by), Math.abs(by) / 10 || 1, Math.abs(by) || 1)));
      } else {  // redis_pause, failover, disconnect
        const what = kind === 'redis_pause' ? 'paused' : kind === 'failover' ? 'failover: writes lost' : kind;
        if (b > a) s.append(rect(x0, y, x1 - x0, h, {fill: 'url(#fault)', stroke: '#a04e00'}, name + ': ' + what + ' [' + ms(a) + ', ' + ms(b) + ')' + said));
        else s.append(el('line', {x1: x0.toFixed(1), x2: x0.toFixed(1), y1: y, y2: y + h, stroke: '#a04e00', 'stroke-width': 2}, name + ': ' + what + ' at ' + ms(a) + said));
        if (inside || b === a) s.append(el('text', {x: (x0 + 3).toFixed(1), y: y + 11, fill: '#a04e00'}, '', what));
      }
    }
    drawMasterClock(s, m, y, h, name);
  }
  s.append(el('line', {x1: 0, x2: W, y1: MH - 5, y2: MH - 5, stroke: '#888'}));
}

function drawRows(sight) {
  const H = H_ROWS, few = EP.filter(([a, b]) => b >= v0 && a <= v1).length <= 20;
  const s = document.createDocumentFragment();
  drawMasters(s);
  const [first, end] = sight;
  D.rows.slice(first, end).forEach((r, j) => {
    const i = first + j, y = MH + i * ROW + 2, bh = ROW - 4;
    if (i % 2) s.append(rect(0, y - 1, W, ROW, {fill: '#f3f4f6'}));
    // Holds, merged where closer than a pixel; the part past a lease hatched red.
    const h = r.holds, n = h.length / 5;
    let k = Math.max(0, lowerBound(h, 5, v0) - 1), run = null;
    const past = document.createDocumentFragment();
    // A row with many holds in sight draws its bars as one path per look, not an element each: the
    // redraw stays fast at a whole minute of 1,000 clients; zoomed in, each bar has its hover text.
    const inSight = lowerBound(h, 5, v1) - k, dense = inSight > 12, paths = new Map();
    const bar = (x0, w, attrs, title, into) => {
      if (!dense) { into.append(rect(x0, y, w, bh, attrs, title)); return; }
      const key = JSON.stringify(attrs), wd = Math.max(w, 0).toFixed(1);
      paths.set(key, (paths.get(key) || '') + 'M' + x0.toFixed(1) + ',' + y + 'h' + wd + 'v' + bh + 'h-' + wd + 'z');
    };
    const flush = () => {
      if (!run) return;
      const fill = run.flags & 1 ? {fill: '#fff', stroke: '#1f4e9a', 'stroke-dasharray': '3,2'} : {fill: '#1f4e9a'};
      const what = run.count > 1 ? run.count + ' holds within [' + ms(run.a) + ', ' + ms(run.b) + ')'
                 : (run.flags & 1 ? 'may hold (acquire outcome unknown) [' : 'holds [') +
                   ms(run.a) + ', ' + ms(run.b) + ')' + (run.flags & 8 ? ' (to the end)' : '') +
                   (run.lease >= 0 ? '; lease to ' + ms(run.lease) + ' (invoke + timeout)' : '') +
                   (run.flags & 2 ? '; named in the witness of an over-admission' : '') +
                   (run.flags >> 4 ? '; votes from ' + mastersText(run.flags >> 4) : '');
      bar(run.x0, run.x1 - run.x0, fill, 'client ' + r.id + ': ' + what, s);
      // The part held while more than `limit` held: red, episodes closer than a pixel as one mark.
      if (!(run.flags & 1)) {
        let red = null;
        const put = () => {
          if (!red) return;
          bar(red.x0, red.x1 - red.x0, {fill: '#c0392b'}, 'client ' + r.id + ' held while ' +
              (red.n > 1 ? 'more than the limit (' + D.limit + ') held, in ' + red.n + ' over-admissions within ['
                         : red.peak + ' held (limit ' + D.limit + '): [') + ms(red.a) + ', ' + ms(red.b) + ')', s);
          red = null;
        };
        for (let e = Math.max(0, lowerBound(EPA, 1, run.a) - 1); e < EP.length && EP[e][0] < run.b; e++) {
          const a = Math.max(EP[e][0], run.a), b = Math.min(EP[e][1], run.b);
          if (b <= a) continue;
          const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 1.5);
          if (red && x0 <= red.x1 + 0.5) { red.x1 = Math.max(red.x1, x1); red.b = EP[e][1]; red.n++; continue; }
          put();
          red = {x0, x1, a: EP[e][0], b: EP[e][1], peak: EP[e][2], n: 1};
        }
        put();
      }
      // Outlined where wide enough to tell an outline from a fill (zoom in to see the witnesses).
      if (run.flags & 2 && run.x1 - run.x0 >= 8) s.append(rect(run.x0 + 0.75, y + 0.75, Math.max(run.x1 - run.x0 - 1.5, 0.5), bh - 1.5,
                                                               {fill: 'none', stroke: '#000', 'stroke-width': 1.5}));
      run = null;
    };
    for (; k < n && h[5 * k] < v1; k++) {
      const a = h[5 * k], b = h[5 * k + 1], lease = h[5 * k + 2], flags = h[5 * k + 3], count = h[5 * k + 4];
      if (b < v0) continue;
      const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 1);
      if (run && x0 <= run.x1 + 0.5 && ((run.flags ^ flags) & 3) === 0) {
        run.x1 = Math.max(run.x1, x1); run.b = b; run.count += count; run.flags |= flags; run.lease = -1;
      } else { flush(); run = {x0, x1, a, b, lease, flags, count}; }
      if (lease >= 0 && lease < b && count === 1) {
        const l0 = clampX(x(Math.max(lease, a))), l1 = Math.max(clampX(x(b)), l0 + 1);
        bar(l0, l1 - l0, {fill: 'url(#overrun)', stroke: '#000'}, 'client ' + r.id + ' held past its lease: Redis\'s lease ended at ' +
            ms(lease) + ' (invoke + timeout), the client believed until ' + ms(b) + ': ' + ms(b - lease) + ' under an expired lease', past);
        if (!dense) past.append(el('line', {x1: l0.toFixed(1), x2: l0.toFixed(1), y1: y - 1, y2: y + bh + 1, stroke: '#000', 'stroke-width': 2}));
      }
    }
    flush();
    for (const [key, d] of paths)
      s.append(el('path', Object.assign({d}, JSON.parse(key)), 'client ' + r.id + ': ' + inSight +
                  ' holds in sight, drawn together (zoom in for each one\'s times)'));
    s.append(past);
    // Pauses under the bar, in the gap between rows: the hold above stays visible.
    for (let k = Math.max(0, lowerBound(r.pauses, 2, v0) - 1) * 2; k < r.pauses.length && r.pauses[k] < v1; k += 2) {
      const a = r.pauses[k], b = r.pauses[k + 1];
      if (b < v0) continue;
      const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 1);
      s.append(rect(x0, y + bh, x1 - x0, 3, {fill: '#7b3f9e'}, 'client ' + r.id + ' paused [' + ms(a) + ', ' + ms(b) + ')'));
    }
    for (const t of r.crashes) {
      if (t < v0 || t > v1) continue;
      const px = x(t), c = y + bh / 2;
      s.append(el('path', {d: 'M' + (px - 4) + ',' + (c - 4) + 'l8,8m0,-8l-8,8', stroke: '#000', 'stroke-width': 2.2},
                  'client ' + r.id + ' crashed at ' + ms(t)));
    }
    for (let j = 0; j < r.jumps.length; j += 2) {
      const t = r.jumps[j], by = r.jumps[j + 1];
      if (t < v0 || t > v1) continue;
      const px = x(t), up = by >= 0;
      s.append(el('path', {d: 'M' + (px - 5) + ',' + (up ? y + bh : y) + 'h10l-5,' + (up ? -bh : bh) + 'z', fill: '#7b3f9e'},
                  'client ' + r.id + '\'s clock jumped ' + (up ? '+' : '') + ms(by) + ' at ' + ms(t)));
    }
  });
  // Over-admission across the rows, when few enough to tell apart.
  if (few) for (const [a, b, peak] of EP) {
    if (b < v0 || a > v1) continue;
    const x0 = clampX(x(a)), x1 = Math.max(clampX(x(b)), x0 + 2);
    s.prepend(rect(x0, 0, x1 - x0, H, {fill: '#c0392b', 'fill-opacity': 0.13}, 'over-admission [' + ms(a) + ', ' + ms(b) + '): ' + peak + ' holders'));
  }
  s.append(drawFaults(MH, H, false));
  plotSvg.setAttribute('width', W);
  bars.replaceChildren(s);
}
function mastersText(bits) {
  const m = [];
  for (let k = 0; k < 9; k++) if (bits & (1 << k)) m.push(k + 1);
  return (m.length === 1 ? 'master ' : 'masters ') + m.join(', ');
}

function fmtRange(a, b) { const st = niceStep(b - a, 110) / 10; return fmtIn(a, st, b - a) + ' \u2013 ' + fmtIn(b, st, b - a); }
function render() {
  W = Math.max(720, document.getElementById('rowsbox').clientWidth);
  const sight = rowsInSight();  // before the axis changes: reading the layout then would lay it out again
  drawAxis();
  drawRows(sight);
  const zoom = D.span / (v1 - v0);
  document.getElementById('range').textContent = 'showing ' + fmtRange(v0, v1) + ' of ' + fmtIn(D.span, D.span / 100, D.span) +
    (zoom > 1.001 ? ' (\u00d7' + (zoom < 10 ? zoom.toFixed(1) : Math.round(zoom)) + ')' : '');
  for (const svg of [axisSvg, plotSvg]) { svg.dataset.viewStart = Math.round(v0); svg.dataset.viewEnd = Math.round(v1); }
  document.getElementById('zin').disabled = v1 - v0 <= MIN_SPAN;
  document.getElementById('zout').disabled = document.getElementById('all').disabled = v0 <= 0 && v1 >= D.span;
  document.getElementById('prev').disabled = current <= 0;
  document.getElementById('next').disabled = current >= EP.length - 1;
  document.getElementById('first').disabled = EP.length === 0;
}
let pending = false;
function redraw() { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; render(); }); } }

function setView(a, b) {
  let span = Math.max(MIN_SPAN, Math.min(D.span, b - a));
  a = Math.max(0, Math.min(D.span - span, a + ((b - a) - span) / 2));
  v0 = a; v1 = a + span;
  redraw();
}
function zoomAt(t, factor) { setView(t - (t - v0) * factor, t + (v1 - t) * factor); }
function pan(dt) { const s = v1 - v0; setView(v0 + dt, v0 + dt + s); }
function goTo(i) {
  if (!EP.length) return;
  current = Math.max(0, Math.min(EP.length - 1, i));
  // A short episode whole, with twice its length around it; a long one by its start (how it began),
  // a twentieth of the run wide.
  const [a, b, peak] = EP[current], span = Math.max(50, Math.min(5 * (b - a), D.span / 20));
  setView(a - span * 0.3, a + span * 0.7);
  document.getElementById('where').textContent = 'over-admission ' + (current + 1) + ' of ' + EP.length +
    (D.episode_count > EP.length ? ' listed (' + D.episode_count + ' in all)' : '') + ': [' + ms(a) + ', ' + ms(b) + '), ' + peak + ' holders';
}

for (const svg of [axisSvg, plotSvg]) svg.addEventListener('wheel', e => {
  e.preventDefault();
  const px = e.clientX - svg.getBoundingClientRect().left;
  if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) * (v1 - v0) / (W - L - RIGHT));
  else zoomAt(tAt(clampX(px)), Math.exp(e.deltaY * 0.002));
}, {passive: false});
plotSvg.addEventListener('mousedown', e => { drag = {x: e.clientX, v0, v1}; plotSvg.classList.add('dragging'); e.preventDefault(); });
axisSvg.addEventListener('mousedown', e => {
  const px = e.clientX - axisSvg.getBoundingClientRect().left;
  brush = {x0: clampX(px), x1: clampX(px)}; e.preventDefault();
});
window.addEventListener('mousemove', e => {
  if (drag) { const dt = (drag.x - e.clientX) * (drag.v1 - drag.v0) / (W - L - RIGHT); v0 = drag.v0; v1 = drag.v1; pan(dt); }
  if (brush) { brush.x1 = clampX(e.clientX - axisSvg.getBoundingClientRect().left); redraw(); }
});
window.addEventListener('mouseup', () => {
  if (drag) { drag = null; plotSvg.classList.remove('dragging'); }
  if (brush) {
    const a = tAt(Math.min(brush.x0, brush.x1)), b = tAt(Math.max(brush.x0, brush.x1));
    const wide = Math.abs(brush.x1 - brush.x0) > 4;
    brush = null;
    if (wide) setView(a, b); else redraw();
  }
});
plotSvg.addEventListener('dblclick', e => zoomAt(tAt(clampX(e.clientX - plotSvg.getBoundingClientRect().left)), 0.5));
document.getElementById('zin').onclick = () => zoomAt((v0 + v1) / 2, 0.5);
document.getElementById('zout').onclick = () => zoomAt((v0 + v1) / 2, 2);
document.getElementById('all').onclick = () => { current = -1; document.getElementById('where').textContent = ''; setView(0, D.span); };
document.getElementById('first').onclick = () => goTo(0);
document.getElementById('next').onclick = () => goTo(current + 1);
document.getElementById('prev').onclick = () => goTo(current - 1);
window.addEventListener('keydown', e => {
  if (e.target.tagName === 'INPUT') return;
  const k = e.key, s = v1 - v0;
  if (k === '+' || k === '=') zoomAt((v0 + v1) / 2, 0.5);
  else if (k === '-') zoomAt((v0 + v1) / 2, 2);
  else if (k === '0') document.getElementById('all').onclick();
  else if (k === 'ArrowLeft') pan(-s / 5);
  else if (k === 'ArrowRight') pan(s / 5);
  else if (k === 'f') goTo(0);
  else if (k === 'n') goTo(current + 1);
  else if (k === 'p') goTo(current - 1);
  else return;
  e.preventDefault();
});
window.addEventListener('resize', redraw);
window.addEventListener('scroll', redraw, {passive: true});  // the rows coming into sight

// The title, the run in one line and the notes, the history's words as text.
document.getElementById('title').textContent = D.variant + ' \u2014 who held a permit when';
(function () {
  const verdict = v => { const b = document.createElement('b'); b.className = v; b.textContent = v; return b; };
  const t = D.timeout_us;
  document.getElementById('sum').append(D.mode + ' mode, seed ' + D.seed + ', ' + D.clients + ' clients, limit ' + D.limit +
    (t >= 0 ? ', timeout ' + (t % 1e6 === 0 ? t / 1e6 + ' s' : t % 1e3 === 0 ? t / 1e3 + ' ms' : ms(t)) : '') + '. Safety ',
    verdict(D.safety), ' (max ' + D.max_holders + ' holders, over the limit for ' + ms(D.over_limit_us) + ' in ' + D.episode_count +
    ' episode' + (D.episode_count === 1 ? '' : 's') + '), liveness ', verdict(D.liveness), '.');
  if (t < 0) document.getElementById('lease-legend').style.display = 'none';
  if (!D.masters) for (const e of document.querySelectorAll('.mlegend')) e.style.display = 'none';
  const notes = [];
  if (D.masters) notes.push(D.masters + ' masters, a permit stands on ' + D.quorum + ' of their votes: each master\'s lane shows ' +
                            'the permits it voted for, its downtime and restarts, its clock against true time (skew, drift, jumps) and the clients cut from it.');
  if (D.hidden > 0) notes.push('Showing the first ' + (D.rows.length - D.witness_rows) + ' clients' +
                              (D.witness_rows ? ' and the ' + D.witness_rows + ' beyond them that a witness names' : '') +
                              '; ' + D.hidden + ' more are not drawn.');
  if (D.merge_gap_us > 0) notes.push('Holds of one client less than ' + ms(D.merge_gap_us) + ' apart are merged (the history has too many to draw each).');
  document.getElementById('notes').textContent = notes.join(' ');
})();
render();
)JS";

}  // namespace

std::string timeline_page(const std::string& variant, const std::string& data) {
  // The page runs its own script and applies its own style, nothing else (page_safety.h).
  std::string page = "<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">" + page_policy({kScript}, {kStyle}) +
                     "<meta name=viewport content=\"width=device-width, initial-scale=1\">"
                     "<title>semsim timeline: " + escape_html(variant) + "</title>\n<style>" + kStyle + "</style></head><body>\n";
  page += kPatterns;
  page += R"HTML(
<header>
<h1 id="title"></h1>
<p class="sum" id="sum"></p>
<div class="controls">
<button id="first" class="over" title="jump to the first over-admission and zoom to it (f)">first over-admission</button>
<button id="prev" class="over" title="previous over-admission (p)">&#9664; previous</button>
<button id="next" class="over" title="next over-admission (n)">next &#9654;</button>
<button id="zin" title="zoom in (+, wheel, double-click)">zoom in</button>
<button id="zout" title="zoom out (-, wheel)">zoom out</button>
<button id="all" title="the whole run (0)">whole run</button>
<span id="range"></span><span id="where"></span>
</div>
<div class="legend">
<span><svg width="22" height="12"><rect width="22" height="12" fill="#1f4e9a"/></svg>holds</span>
<span><svg width="22" height="12"><rect width="22" height="12" fill="#c0392b"/></svg>held while more than the limit held</span>
<span><svg width="22" height="12"><rect x="1" y="1" width="20" height="10" fill="#1f4e9a" stroke="#000" stroke-width="1.5"/></svg>named in a witness</span>
<span><svg width="22" height="12"><rect x="1" y="1" width="20" height="10" fill="#fff" stroke="#1f4e9a" stroke-dasharray="3,2"/></svg>may hold (outcome unknown)</span>
<span id="lease-legend"><svg width="22" height="12"><rect width="22" height="12" fill="#1f4e9a"/><rect width="22" height="12" fill="url(#overrun)" stroke="#000"/><line x1="1" x2="1" y1="0" y2="12" stroke="#000" stroke-width="2"/></svg>held past its lease (from invoke + timeout)</span>
<span><svg width="22" height="12"><rect width="22" height="9" fill="#1f4e9a"/><rect y="9" width="22" height="3" fill="#7b3f9e"/></svg>paused (under the bar)</span>
<span><svg width="12" height="12"><path d="M2,2l8,8m0,-8l-8,8" stroke="#000" stroke-width="2.2"/></svg>crash</span>
<span><svg width="12" height="12"><path d="M1,11h10l-5,-10z" fill="#7b3f9e"/></svg>clock jump</span>
<span><svg width="22" height="12"><rect width="22" height="12" fill="url(#fault)" stroke="#a04e00"/></svg>fault of Redis</span>
<span><svg width="12" height="12"><path d="M2,1h8l-4,7z" fill="#a04e00"/></svg>Redis no longer counted a believed permit (sample)</span>
<span class="mlegend"><svg width="22" height="12"><rect width="22" height="12" fill="#eef6ef" stroke="#cfe3d3"/><rect y="2" width="22" height="6" fill="#1f4e9a" fill-opacity="0.8"/></svg>master lane: up, and a permit it voted for</span>
<span class="mlegend"><svg width="22" height="12"><rect width="22" height="12" fill="#555" fill-opacity="0.45"/><line x1="21" x2="21" y1="0" y2="12" stroke="#000" stroke-width="2.5"/></svg>master down, then restarted</span>
<span class="mlegend"><svg width="22" height="12"><rect y="5" width="22" height="7" fill="#e8912d" fill-opacity="0.5" stroke="#b4531f" stroke-dasharray="3,2"/></svg>master cut from a client</span>
<span class="mlegend"><svg width="22" height="12"><polyline points="0,9 22,3" fill="none" stroke="#7b3f9e" stroke-width="1.5" stroke-dasharray="5,2"/></svg>master's clock against true time (up: ahead)</span>
</div>
<p class="help">Wheel or <kbd>+</kbd>/<kbd>-</kbd> to zoom,
drag the rows (or <kbd>&larr;</kbd>/<kbd>&rarr;</kbd>) to pan, drag across the holders lane to zoom to a range.
Hover a mark for its times. Each row: the client and its clock offset (mean of client &minus; true time at its acquires).</p>
</header>
<div id="top"><svg id="axis" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div id="rowsbox"><svg id="plot" xmlns="http://www.w3.org/2000/svg"></svg><svg id="labels" xmlns="http://www.w3.org/2000/svg"></svg></div>
<p class="notes" id="notes"></p>
<script type="application/json" id="data">)HTML";
  page += data;
  page += R"HTML(</script>
<script>)HTML";
  page += kScript;
  page += "</script>\n</body></html>\n";
  return page;
}

}  // namespace semsim
