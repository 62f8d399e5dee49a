import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * The dashboard's static files, served from the package (no CDN): uPlot's script and stylesheet from
 * node_modules, and the page's own script and stylesheet below. uPlot (MIT, about 50 kB minified, no
 * dependencies) draws the runs-per-day charts on a canvas; the rest of the page is plain server-side
 * HTML and works without scripts.
 */

/** The page's script: draws each chart from its JSON block and sizes the stage bars (no inline script or style). */
const CHARTS_JS = `(function () {
  'use strict';
  var COLOURS = { PASS: '#2da44e', ADVISE: '#7d8590', REFINE: '#bf8700', RESEARCH: '#8250df', ASK_AUTHOR: '#0969da', ESCALATE: '#bc4c00', STUCK: '#cf222e', SKIPPED: '#afb8c1', unknown: '#d0d7de' };
  document.querySelectorAll('.bar[data-width]').forEach(function (el) { el.style.width = el.getAttribute('data-width') + '%'; });
  if (typeof uPlot === 'undefined') return;
  document.querySelectorAll('.chart[data-chart]').forEach(function (el) {
    var src = document.getElementById(el.getAttribute('data-chart'));
    if (!src) return;
    var data = JSON.parse(src.textContent || '{}');
    var xs = data.days.map(function (d) { return Date.parse(d + 'T12:00:00Z') / 1000; });
    // Stacked bars: each series is drawn as the running total up to it, the tallest first.
    var totals = xs.map(function () { return 0; });
    var stacked = data.series.map(function (s) {
      return s.counts.map(function (n, i) { totals[i] += n; return totals[i]; });
    });
    var order = data.series.map(function (_, i) { return i; }).reverse();
    var bars = uPlot.paths.bars({ size: [0.7, 40] });
    var opts = {
      width: Math.max(280, el.clientWidth || 420), height: 180,
      legend: { show: true },
      // Half a day of room on each side, so the first and last days' bars are drawn whole.
      scales: { x: { time: true, range: function (u, min, max) { return [min - 43200, max + 43200]; } },
        y: { range: function (u, min, max) { return [0, Math.max(1, max)]; } } },
      axes: [{}, { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }],
      series: [{ label: 'day', value: function (u, v) { return v == null ? '' : new Date(v * 1000).toISOString().slice(0, 10); } }].concat(order.map(function (i) {
        var s = data.series[i];
        var c = COLOURS[s.outcome] || '#57606a';
        return { label: s.outcome, stroke: c, fill: c, paths: bars, points: { show: false },
          value: function (u, v, si, di) { return di == null ? '' : String(s.counts[di]); } };
      }))
    };
    new uPlot(opts, [xs].concat(order.map(function (i) { return stacked[i]; })), el);
  });
})();
`;

const DASHBOARD_CSS = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; }
body { margin: 0; background: #f6f8fa; }
header { background: #24292f; color: #fff; padding: 10px 20px; display: flex; gap: 12px; align-items: baseline; }
header a { color: #fff; } header .brand { font-weight: 700; text-decoration: none; font-size: 1.1em; }
header .muted { color: #afb8c1; } header .who { margin-left: auto; }
main { padding: 8px 20px 40px; max-width: 1280px; }
h2 { margin-top: 28px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.muted { color: #656d76; }
table { border-collapse: collapse; width: 100%; background: #fff; font-size: 0.92em; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eaeef2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.message, td.reason { max-width: 560px; overflow-wrap: anywhere; white-space: pre-wrap; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; background: #eaeef2; border: 1px solid #d0d7de; font-size: 0.85em; font-weight: 600; white-space: nowrap; }
.badge.red { background: #cf222e; border-color: #a40e26; color: #fff; }
.badge.green { background: #dafbe1; border-color: #4ac26b; color: #116329; }
.rate.noisy { color: #cf222e; font-weight: 700; }
.cards { display: flex; flex-wrap: wrap; gap: 16px; }
.card { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px; min-width: 320px; flex: 1 1 420px; }
.card h3 { margin: 0 0 6px; } dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 0 0 8px; }
dt { color: #656d76; } dd { margin: 0; font-weight: 600; }
.bar { height: 10px; background: #0969da; border-radius: 2px; min-width: 2px; width: 1%; }
table.stages td:nth-child(3) { width: 40%; }
form label { display: block; margin: 8px 0; } input { padding: 4px 6px; min-width: 280px; }
button, .button { padding: 5px 12px; border: 1px solid #1f883d; background: #1f883d; color: #fff; border-radius: 6px; text-decoration: none; cursor: pointer; }
.notice { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }
`;

export interface Asset {
  type: string;
  body: string | Buffer;
}

const require = createRequire(import.meta.url);
let uplot: Promise<{ js: Buffer; css: Buffer }> | undefined;

async function uplotFiles(): Promise<{ js: Buffer; css: Buffer }> {
  return (uplot ??= Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js')),
    readFile(require.resolve('uplot/dist/uPlot.min.css')),
  ]).then(([js, css]) => ({ js, css })));
}

/** The asset at `name` (`charts.js`, `uPlot.min.css`, …), or null. */
export async function asset(name: string): Promise<Asset | null> {
  switch (name) {
    case 'charts.js':
      return { type: 'text/javascript; charset=utf-8', body: CHARTS_JS };
    case 'dashboard.css':
      return { type: 'text/css; charset=utf-8', body: DASHBOARD_CSS };
    case 'uPlot.iife.min.js':
      return { type: 'text/javascript; charset=utf-8', body: (await uplotFiles()).js };
    case 'uPlot.min.css':
      return { type: 'text/css; charset=utf-8', body: (await uplotFiles()).css };
    default:
      return null;
  }
}
