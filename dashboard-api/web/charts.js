// Small charts of the tool-call audit trail (GET /tool-call-stats): per service or per tool, the
// calls over time with the failed ones in red, and the latency (median and 95th percentile).
// Inline SVG built as DOM nodes, coloured by the stylesheet: no library, no inline style.
import { get } from './api.js';
import { empty, errorBox, fill, h } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 240;
const H = 48;

const periods = [['1h', 'Last hour'], ['24h', 'Last 24 hours'], ['168h', 'Last 7 days']];

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

const fmtMS = (ms) => ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
const pct = (n, of) => of ? `${Math.round((100 * n) / of)}%` : '0%';

/**
 * A panel of call charts for filter (service, deck, group_by), with a period picker and a link
 * to the matching calls in the activity screen (calls: its filter, by name as its lists show).
 */
export function callCharts(title, filter, calls) {
  const body = h('div', { 'aria-live': 'polite' });
  const pick = h('select', { 'aria-label': `Period of ${title.toLowerCase()}` },
    periods.map(([v, t]) => h('option', { value: v, selected: v === '24h' ? true : undefined }, t)));
  const box = h('section.panel', { 'aria-label': title, 'data-charts': filter.group_by || 'service' },
    h('div.row.spread', {}, h('h2', {}, title), h('div.row', {}, pick,
      h('a.button', { href: '#/activity?' + new URLSearchParams(calls).toString() }, 'See the calls'))), body);
  const load = async () => {
    fill(body, h('p.muted', {}, 'Loading…'));
    try {
      const q = new URLSearchParams({ ...filter, since: pick.value });
      draw(body, await get('/tool-call-stats?' + q.toString()));
    } catch (err) {
      fill(body, errorBox(err));
    }
  };
  pick.addEventListener('change', load);
  load();
  return box;
}

function draw(box, st) {
  if (!st.series.length) {
    return fill(box, empty(h('p', {}, 'No calls in this period.'), h('p', {}, 'Calls through the deck server show up here as agents make them.')));
  }
  const since = Date.parse(st.since);
  const step = st.bucket_seconds * 1000;
  const n = Math.max(1, Math.ceil((Date.parse(st.until) - since) / step));
  fill(box, h('div.charts', {}, st.series.map((se) => series(se, since, step, n, st.group_by))),
    st.more_series ? h('p.muted', {}, `${st.more_series} more with fewer calls not shown.`) : null,
    h('p.hint', {}, `From ${new Date(st.since).toLocaleString()} to now; each bar is ${label(st.bucket_seconds)}, red is the part that failed.`));
}

function label(seconds) {
  if (seconds % 86400 === 0) return `${seconds / 86400} day${seconds === 86400 ? '' : 's'}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
}

function series(se, since, step, n, groupBy) {
  const name = groupBy === 'tool' ? se.tool : se.service;
  const failed = se.errors + se.is_errors;
  const slots = new Array(n).fill(null);
  for (const b of se.buckets) {
    const i = Math.min(n - 1, Math.max(0, Math.floor((Date.parse(b.at) - since) / step)));
    slots[i] = b;
  }
  const summary = `${name}: ${se.calls} call${se.calls === 1 ? '' : 's'}, ${failed} failed (${pct(failed, se.calls)}), median ${fmtMS(se.p50_ms)}, 95th percentile ${fmtMS(se.p95_ms)}`;
  return h('article.chart-row', { 'data-series': name, 'aria-label': summary },
    h('div.chart-name', {}, h('code', {}, name),
      h('span.muted', {}, ` ${se.calls} call${se.calls === 1 ? '' : 's'} · `, h('span', { 'data-failed': failed }, `${pct(failed, se.calls)} failed`),
        ` · p50 ${fmtMS(se.p50_ms)} · p95 ${fmtMS(se.p95_ms)}`)),
    h('div.chart-pair', {},
      h('div', {}, h('div.hint', { 'aria-hidden': 'true' }, 'Calls'), callsChart(slots, n, name)),
      h('div', {}, h('div.hint', { 'aria-hidden': 'true' }, 'Latency: median, ', h('span.p95-key', {}, '95th percentile')), latencyChart(slots, n, name))));
}

/** Bars of calls per bucket, the failed part red. */
function callsChart(slots, n, name) {
  const top = Math.max(1, ...slots.map((b) => (b ? b.calls : 0)));
  const bw = W / n;
  const bars = [];
  slots.forEach((b, i) => {
    if (!b) return;
    const x = (i * bw).toFixed(2);
    const w = Math.max(1, bw - 1).toFixed(2);
    const hAll = (b.calls / top) * (H - 2);
    const hBad = ((b.errors + b.is_errors) / top) * (H - 2);
    bars.push(svg('rect', { class: 'bar', x, y: (H - hAll).toFixed(2), width: w, height: hAll.toFixed(2) }));
    if (hBad > 0) bars.push(svg('rect', { class: 'bar fail', x, y: (H - hBad).toFixed(2), width: w, height: hBad.toFixed(2) }));
  });
  return figure(`Calls of ${name} over time, at most ${top} per bar`, 'calls', bars);
}

/** The median and 95th percentile latency of each bucket, as a level across the bucket. */
function latencyChart(slots, n, name) {
  const top = Math.max(0.001, ...slots.map((b) => (b ? b.p95_ms : 0)));
  const bw = W / n;
  const y = (ms) => (H - 1 - (ms / top) * (H - 3)).toFixed(2);
  // One polyline per run of buckets with calls: steps, so a lone bucket still shows.
  const lines = (key, cls) => {
    const out = [];
    let pts = [];
    slots.forEach((b, i) => {
      if (!b) { if (pts.length) out.push(pts); pts = []; return; }
      pts.push(`${(i * bw).toFixed(2)},${y(b[key])}`, `${((i + 1) * bw).toFixed(2)},${y(b[key])}`);
    });
    if (pts.length) out.push(pts);
    return out.map((p) => svg('polyline', { class: 'line ' + cls, points: p.join(' ') }));
  };
  return figure(`Latency of ${name} over time: median and 95th percentile, at most ${fmtMS(top)}`, 'latency',
    [...lines('p95_ms', 'p95'), ...lines('p50_ms', 'p50')]);
}

function figure(text, kind, shapes) {
  return svg('svg', { class: 'chart ' + kind, viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': text },
    svg('title', {}, text), svg('line', { class: 'axis', x1: 0, y1: H - 0.5, x2: W, y2: H - 0.5 }), ...shapes);
}
