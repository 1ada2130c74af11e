// The liveness curve: bytes live at each program step (always-live + the step's not-always-live), a line per
// build on one axis (a report's one, a diff's two), the IPU's memory as a dashed line where a limit applies, the
// peak marked; the pointer gives the step under it and its bytes.
import { COLOURS, hideTip, setupCanvas, showTip, widest } from "./dom.mjs";
import { fill } from "./format.mjs";
import { besideLine, byteTicks, byteUnit, niceStep } from "./ticks.mjs";

// The IPU's memory is drawn up to this many times the highest peak (the curves keep a quarter of the height).
export const LIMIT_RANGE = 4;
export const SERIES = [COLOURS.dark, "#ff7f0e"];  // a report's curve (or a diff's old), a diff's new

// The top of the byte axis: the highest peak, and the limit when within LIMIT_RANGE of it.
export function liveTop(curves) {
  let top = 1, limit = null;
  for (const c of curves) {
    top = Math.max(top, c.live[c.peak] || 0);
    if (c.limit) limit = Math.max(limit || 0, c.limit);
  }
  return limit !== null && limit <= LIMIT_RANGE * top ? Math.max(top, limit) * 1.05 : top * 1.05;
}

// For `columns` pixel columns over n steps, each column's step with the most bytes (the peak is never averaged
// away), as indices; every step when they fit.
export function columnSteps(live, columns) {
  const n = live.length, out = [];
  if (n <= columns) {
    for (let i = 0; i < n; i++) out.push(i);
    return out;
  }
  for (let c = 0; c < columns; c++) {
    const a = Math.floor(c * n / columns), b = Math.max(a + 1, Math.floor((c + 1) * n / columns));
    let best = a;
    for (let i = a + 1; i < b; i++) if (live[i] > live[best]) best = i;
    out.push(best);
  }
  return out;
}

// The step under the pointer x pixels into a plot plotW wide spanning n steps (the highest of its pixel column
// when a column holds several), or -1 outside it.
export function stepUnder(live, x, plotW, n) {
  if (x < 0 || x >= plotW || !live.length) return -1;
  const a = Math.floor(x / plotW * n), b = Math.max(a + 1, Math.floor((x + 1) / plotW * n));
  let best = -1;
  for (let i = a; i < Math.min(b, live.length); i++) if (best < 0 || live[i] > live[best]) best = i;
  return best;
}

// The steps named under the axis, for n steps over plotW pixels with names at most `width` pixels wide: every
// step-th (1, 2, 5, 10, 20...: 0, 100, 200...) from the first, a name and 16 pixels apart, as indices.
export function stepTicks(n, plotW, width) {
  if (!n) return [];
  const gap = width + 16, step = Math.max(1, niceStep(n, Math.max(1, Math.floor(plotW / gap))));
  const wide = step * plotW / n < gap ? 2 * step : step, out = [];  // a rounded-down step too tight: twice as far
  for (let i = 0; i < n; i += wide) out.push(i);
  return out;
}

// The step whose path is written with the most characters (the widest name under the axis, measured once).
export function longestStep(steps) {
  let best = "";
  for (const s of steps) if (s.length > best.length) best = s;
  return best;
}

// The tip's lines for step i of each curve: its path (and program name), its bytes (and share of the limit).
export function describeStep(curves, i, labels, format) {
  const out = [];
  for (const c of curves) {
    if (i < 0 || i >= c.live.length) continue;
    const step = c.names[i] ? fill(labels.liveness_step_named, {step: c.steps[i], name: c.names[i]})
      : fill(labels.liveness_step, {step: c.steps[i]});
    const size = format.bytes(c.live[i]), live = c.limit
      ? fill(labels.liveness_share, {size: size, share: format.share(c.live[i], c.limit)})
      : fill(labels.liveness_live, {size: size});
    if (c.label) out.push(fill(labels.liveness_series, {label: c.label, text: step}), live);
    else out.push(step, live);
  }
  return out;
}

const BOTTOM = 20, LINE = 14;  // BOTTOM: the steps named under the axis

export function drawLiveness(canvas, curves, labels, format) {
  const TOP = 16 + (curves.length > 1 ? LINE * curves.length : 0);  // a diff's curves are named above the plot
  const draw = () => {
    const [ctx, w, h] = setupCanvas(canvas), top = liveTop(curves);
    const ticks = byteTicks(0, top, Math.floor((h - TOP - BOTTOM) / 28));
    const tickLabels = ticks.map(byteUnit(0, top) === 1048576 ? format.size : format.kib);
    const left = Math.ceil(widest(ctx, tickLabels)) + 10, plotW = Math.max(10, w - left - 8), plotH = h - TOP - BOTTOM;
    const n = Math.max(...curves.map((c) => c.live.length)), y = (v) => TOP + plotH * (1 - v / top);
    ctx.fillStyle = COLOURS.axis; ctx.strokeStyle = COLOURS.grid; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ticks.forEach((v, k) => {
      ctx.beginPath(); ctx.moveTo(left, Math.round(y(v)) + 0.5); ctx.lineTo(left + plotW, Math.round(y(v)) + 0.5); ctx.stroke();
      ctx.fillText(tickLabels[k], left - 4, y(v));
    });
    curves.forEach((c, k) => {
      const at = (i) => left + (i + 0.5) / n * plotW;
      ctx.strokeStyle = SERIES[k % SERIES.length]; ctx.lineWidth = 1.5; ctx.beginPath();
      columnSteps(c.live, Math.floor(plotW)).forEach((i, j) => (j ? ctx.lineTo(at(i), y(c.live[i])) : ctx.moveTo(at(i), y(c.live[i]))));
      ctx.stroke(); ctx.lineWidth = 1;
      const px = at(c.peak), py = y(c.live[c.peak]);  // the peak: a dot and its bytes (in the curve's colour)
      const peak = fill(labels.liveness_peak, {size: format.bytes(c.live[c.peak])});
      ctx.fillStyle = COLOURS.red; ctx.beginPath(); ctx.arc(px, py, 3.5, 0, 2 * Math.PI); ctx.fill();
      ctx.textBaseline = "bottom";
      if (curves.length > 1) {  // named in its colour above the plot, a line each
        ctx.fillStyle = SERIES[k % SERIES.length]; ctx.textAlign = "left";
        ctx.fillText(fill(labels.liveness_series, {label: c.label, text: peak}), left, 14 + LINE * k);
        ctx.fillStyle = COLOURS.red;
      } else {
        const at = besideLine(px, ctx.measureText(peak).width, left, left + plotW, 6);
        ctx.textAlign = at.align; ctx.fillText(peak, at.x, py - 2);
      }
      if (c.limit && c.limit <= top) {
        const ly = Math.round(y(c.limit)) + 0.5;
        ctx.strokeStyle = COLOURS.red; ctx.setLineDash([5, 4]); ctx.beginPath(); ctx.moveTo(left, ly); ctx.lineTo(left + plotW, ly);
        ctx.stroke(); ctx.setLineDash([]);
        ctx.textAlign = "left"; ctx.fillText(fill(labels.liveness_limit, {size: format.bytes(c.limit)}), left + 4, ly - 2);
      }
    });
    ctx.strokeStyle = COLOURS.axis; ctx.beginPath(); ctx.moveTo(left, TOP + plotH + 0.5); ctx.lineTo(left + plotW, TOP + plotH + 0.5); ctx.stroke();
    const steps = curves.reduce((a, c) => (c.steps.length > a.length ? c.steps : a), []), at = (i) => left + (i + 0.5) / n * plotW;
    ctx.fillStyle = COLOURS.axis; ctx.textAlign = "center"; ctx.textBaseline = "top";  // the steps by their paths
    let end = -Infinity;
    for (const i of stepTicks(n, plotW, ctx.measureText(longestStep(steps)).width)) {
      const half = ctx.measureText(steps[i]).width / 2, x = Math.min(Math.max(at(i), left + half), left + plotW - half);
      if (x - half < end + 8) continue;  // pushed in from the right edge onto the name before it
      ctx.fillText(steps[i], x, TOP + plotH + 4);
      end = x + half;
    }
    canvas.onmousemove = (e) => {
      const x = e.offsetX - left, i = stepUnder(curves[curves.length - 1].live, x, plotW, n);
      const lines = i < 0 ? [] : describeStep(curves, i, labels, format);
      if (lines.length) showTip(e, lines); else hideTip();
    };
    canvas.onmouseleave = hideTip;
  };
  draw();
  return draw;
}
