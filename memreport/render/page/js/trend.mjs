// The trend page: a line chart per figure over the builds, in the order given, with the limit as a dashed red
// line where the figure has one (tile memory for the worst tile, 0 B of headroom). A build that does not say
// leaves a gap in the line, never a made-up point; a lower bound ("at least N tiles") is an open circle.
import { COLOURS, hideTip, setupCanvas, showTip, widest } from "./dom.mjs";
import { fill } from "./format.mjs";
import { byteTicks, byteUnit, countTicks } from "./ticks.mjs";

const TOP = 14, BOTTOM = 24, RIGHT = 14, INSET = 10, LABEL = 14;  // INSET: the first and last points clear the axes
const ELLIPSIS = String.fromCharCode(0x2026);  // a long build name cut under the axis (its tip names it whole)

// The runs of consecutive known values, as [first, last] index pairs: a line joins a run's points only.
export function runs(values) {
  const out = [];
  let start = -1;
  values.forEach((v, i) => {
    if (v !== null && start < 0) start = i;
    if (v === null && start >= 0) { out.push([start, i - 1]); start = -1; }
  });
  if (start >= 0) out.push([start, values.length - 1]);
  return out;
}

// The value axis [lo, hi]: every known value and limit, and 0, with a twentieth of the span each side (a
// flat line sits in the middle, not on an edge).
export function valueAxis(values, limits) {
  let lo = 0, hi = 0;
  for (const v of [...values, ...limits]) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const pad = (hi - lo) / 20 || Math.max(1, Math.abs(hi) / 20);
  return [lo < 0 ? lo - pad : 0, hi + pad];
}

// Where build i of n sits on a plot from left, plotW wide (a lone build in the middle).
export function buildX(i, n, left, plotW) {
  return n === 1 ? left + plotW / 2 : left + plotW * i / (n - 1);
}

// The build nearest x on that plot.
export function buildAt(x, n, left, plotW) {
  if (n === 1) return 0;
  return Math.max(0, Math.min(n - 1, Math.round((x - left) / plotW * (n - 1))));
}

// Which builds' names fit under the axis, at least gap pixels apart: every k-th, the last always.
export function labelled(n, plotW, gap) {
  const step = Math.max(1, Math.ceil(n * gap / Math.max(plotW, 1))), out = [];
  for (let i = 0; i < n; i += step) out.push(i);
  if (out[out.length - 1] !== n - 1) {
    if (out.length > 1 && (n - 1 - out[out.length - 1]) * plotW / Math.max(n - 1, 1) < gap) out.pop();
    out.push(n - 1);
  }
  return out;
}

function drawChart(canvas, c, s) {
  const L = s.labels, F = s.format, n = s.builds.length;
  const value = (v, i) => (v === null ? L.unknown : c.unit === "tiles"
    ? (c.atLeast[i] ? fill(L.at_least, {n: F.count(v)}) : F.tiles(v)) : F.bytes(v));
  const [lo, hi] = valueAxis(c.values, c.limit);
  const ticks = c.unit === "tiles" ? countTicks(hi, 4) : byteTicks(lo, hi, 4);
  const mib = byteUnit(lo, hi) === 1048576;  // a program's total in MiB, a tile's bytes in KiB
  const tick = (v) => (c.unit === "tiles" ? F.count(v) : mib ? F.size(v) : F.kib(v));
  const draw = () => {
    const [ctx, w, h] = setupCanvas(canvas);
    const left = Math.ceil(widest(ctx, ticks.map(tick))) + 10, plotW = Math.max(10, w - left - RIGHT);
    const plotH = h - TOP - BOTTOM, y = (v) => TOP + plotH * (hi - v) / (hi - lo || 1);
    const x = (i) => buildX(i, n, left + INSET, plotW - 2 * INSET);
    ctx.fillStyle = COLOURS.axis; ctx.strokeStyle = COLOURS.grid; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (const v of ticks) {
      if (v < lo || v > hi) continue;
      ctx.beginPath(); ctx.moveTo(left, Math.round(y(v)) + 0.5); ctx.lineTo(left + plotW, Math.round(y(v)) + 0.5); ctx.stroke();
      ctx.fillText(tick(v), left - 4, y(v));
    }
    ctx.strokeStyle = COLOURS.red; ctx.setLineDash([5, 4]);  // the limit: a step per build, halfway to the next
    ctx.beginPath();
    c.limit.forEach((v, i) => {
      if (v === null) return;
      ctx.moveTo(i === 0 ? left : (x(i - 1) + x(i)) / 2, Math.round(y(v)) + 0.5);
      ctx.lineTo(i === n - 1 ? left + plotW : (x(i) + x(i + 1)) / 2, Math.round(y(v)) + 0.5);
    });
    ctx.stroke(); ctx.setLineDash([]);
    const known = c.limit.find((v) => v !== null);
    if (known !== undefined) {
      ctx.fillStyle = COLOURS.red; ctx.textAlign = "left"; ctx.textBaseline = "bottom";
      ctx.fillText(c.key === "worst" ? fill(L.tile_memory, {size: F.kib(known)}) : L.trend_limit_zero, left + 4, y(known) - 2);
    }
    ctx.strokeStyle = COLOURS.dark; ctx.lineWidth = 2;
    for (const [a, b] of runs(c.values)) {
      ctx.beginPath();
      for (let i = a; i <= b; i++) (i === a ? ctx.moveTo : ctx.lineTo).call(ctx, x(i), y(c.values[i]));
      ctx.stroke();
    }
    ctx.lineWidth = 1.5;
    c.values.forEach((v, i) => {
      if (v === null) return;
      const over = c.limit[i] !== null && (c.key === "worst" ? v > c.limit[i] : v < c.limit[i]);
      ctx.beginPath(); ctx.arc(x(i), y(v), 3.5, 0, 2 * Math.PI);
      ctx.fillStyle = c.atLeast[i] ? "#fff" : over ? COLOURS.red : COLOURS.dark;
      ctx.strokeStyle = over ? COLOURS.red : COLOURS.dark;
      ctx.fill(); ctx.stroke();
    });
    ctx.lineWidth = 1; ctx.fillStyle = COLOURS.axis; ctx.textBaseline = "top";
    const names = s.builds.map((b) => (b.length > LABEL ? b.slice(0, LABEL - 1) + ELLIPSIS : b));
    const shown = labelled(n, plotW - 2 * INSET, widest(ctx, names) + 12);
    for (const i of shown) {
      const half = ctx.measureText(names[i]).width / 2;
      ctx.textAlign = "center";
      ctx.fillText(names[i], Math.min(Math.max(x(i), half), w - half), TOP + plotH + 6);
    }
    canvas.onmousemove = (e) => {
      const i = buildAt(e.offsetX, n, left + INSET, plotW - 2 * INSET), v = c.values[i];
      const worst = c.key === "worst" && s.worstTiles[i] !== null ? fill(L.tip_tile, {tile: F.count(s.worstTiles[i])}) : "";
      showTip(e, [s.builds[i], worst, value(v, i)]);
    };
    canvas.onmouseleave = hideTip;
  };
  draw();
  return draw;
}

export function trendSection(s, charts) {
  for (const c of s.charts) {
    const canvas = document.getElementById(s.id + "-" + c.key);
    if (canvas) charts.push({redraw: drawChart(canvas, c, s)});
  }
}
