// The By Tile histogram, as the PNG draws it: bins on a KiB axis that reaches tile memory when it is near, the
// limit as a dashed line (or an arrow to it), counts on a linear or a log axis (a button switches; log first
// when the counts are far apart, where a 1-tile bin would be invisible).
import { COLOURS, el, hideTip, setupCanvas, showTip, widest } from "./dom.mjs";
import { decimal, fill } from "./format.mjs";
import { besideLine, countTicks, logTicks, spacedTicks } from "./ticks.mjs";
import { LIMIT_HEADROOM } from "./zoom.mjs";

export const LOG_COUNT_RATIO = 100;  // counts this far apart open on a log axis (render/plot.py's rule)

export function prefersLog(bins) {
  let lo = Infinity, hi = 0;
  for (const b of bins) if (b.count > 0) { lo = Math.min(lo, b.count); hi = Math.max(hi, b.count); }
  return hi > 0 && hi >= LOG_COUNT_RATIO * lo;
}

// The height (0 to 1 of the plot) of a bar of count on an axis for counts up to most: linear from 0 to 1.1 x
// most; log from 0.7 to 1.6 x most (the PNG's limits), where one tile still stands a tenth of the way up.
export function countHeight(count, most, log) {
  if (count <= 0) return 0;
  if (!log) return count / (1.1 * most);
  const lo = Math.log(0.7), hi = Math.log(1.6 * most);
  return (Math.log(count) - lo) / (hi - lo);
}

// The KiB axis [lo, hi]: the bins, stretched to tile memory when it is near them, and a bin's width each side.
export function kibAxis(bins, limitKib) {
  let width = Infinity;
  for (const b of bins) width = Math.min(width, b.high - b.low);
  const low = bins[0].low, high = bins[bins.length - 1].high;
  const near = limitKib !== null && limitKib <= LIMIT_HEADROOM * Math.max(high, 1);
  return [low - width, (near ? Math.max(high, limitKib) : high) + width];
}

// Where tile memory goes on the axis: "at" (a line), "right" or "left" (beyond the axis: an arrow), or null.
export function limitPlace(limitKib, lo, hi) {
  if (limitKib === null) return null;
  return limitKib < lo ? "left" : limitKib > hi ? "right" : "at";
}

// The bin holding kib, or -1.
export function binAt(kib, bins) {
  return bins.findIndex((b) => kib >= b.low && kib < b.high);
}

const TOP = 16, BOTTOM = 22;

export function drawHistogram(canvas, s) {
  const bins = s.histogram, labels = s.labels, format = s.format, limitKib = s.limit ? s.limit / 1024 : null;
  let log = prefersLog(bins);
  const tools = el("div", "tools"), button = el("button", "", "");
  tools.append(button);
  canvas.before(tools);
  let most = 1;
  for (const b of bins) most = Math.max(most, b.count);
  const draw = () => {
    button.textContent = log ? labels.linear_count : labels.log_count;
    const [ctx, w, h] = setupCanvas(canvas);
    const ticks = log ? logTicks(1.6 * most) : countTicks(1.1 * most, 4), tickLabels = ticks.map(format.count);
    const left = Math.ceil(widest(ctx, tickLabels)) + 10, plotW = Math.max(10, w - left - 8), plotH = h - TOP - BOTTOM;
    const y = (count) => TOP + plotH * (1 - countHeight(count, most, log));
    ctx.fillStyle = COLOURS.axis; ctx.strokeStyle = COLOURS.grid; ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ticks.forEach((v, i) => {
      ctx.beginPath(); ctx.moveTo(left, y(v) + 0.5); ctx.lineTo(left + plotW, y(v) + 0.5); ctx.stroke();
      ctx.fillText(tickLabels[i], left - 4, y(v));
    });
    const [lo, hi] = kibAxis(bins, limitKib), x = (kib) => left + (kib - lo) / (hi - lo) * plotW;
    bins.forEach((b, i) => {
      const next = bins[i + 1];
      if (next && next.low > b.high) {  // rows the source left out: unknown, never drawn as empty bins
        ctx.fillStyle = "#eee"; ctx.fillRect(x(b.high), TOP, x(next.low) - x(b.high), plotH);
      }
      const x0 = x(b.low), bw = Math.max(1, x(b.high) - x0 - (x(b.high) - x0 > 4 ? 1 : 0));
      ctx.fillStyle = b.outOfMemory ? COLOURS.red : b.outOfMemory === null && s.limit && b.count ? COLOURS.maybe : COLOURS.dark;
      ctx.fillRect(x0, y(b.count), bw, TOP + plotH - y(b.count));
    });
    ctx.strokeStyle = COLOURS.axis; ctx.beginPath(); ctx.moveTo(left, TOP + plotH + 0.5); ctx.lineTo(left + plotW, TOP + plotH + 0.5); ctx.stroke();
    const place = limitPlace(limitKib, lo, hi), size = limitKib === null ? "" : format.kib(s.limit);
    ctx.fillStyle = COLOURS.red; ctx.textBaseline = "bottom";
    if (place === "at") {
      const lx = Math.round(x(limitKib)) + 0.5, text = fill(labels.tile_memory, {size: size});
      ctx.strokeStyle = COLOURS.red; ctx.setLineDash([5, 4]); ctx.beginPath();
      ctx.moveTo(lx, TOP - 4); ctx.lineTo(lx, TOP + plotH); ctx.stroke(); ctx.setLineDash([]);
      const at = besideLine(lx, ctx.measureText(text).width, 0, w, 4);  // never cut at the canvas's edge
      ctx.textAlign = at.align; ctx.fillText(text, at.x, TOP - 2);
    } else if (place === "right") {
      ctx.textAlign = "right"; ctx.fillText(fill(labels.tile_memory_right, {size: size}), left + plotW, TOP - 2);
    } else if (place === "left") {
      ctx.textAlign = "left"; ctx.fillText(fill(labels.tile_memory_left, {size: size}), left, TOP - 2);
    }
    ctx.fillStyle = COLOURS.axis; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const gap = widest(ctx, [fill(labels.kib, {n: decimal(hi, 1)})]) + 20;
    for (const v of spacedTicks(lo, hi, plotW, gap)) {
      const text = fill(labels.kib, {n: decimal(v, 1)}), half = ctx.measureText(text).width / 2;
      if (x(v) + half <= w) ctx.fillText(text, Math.max(half, x(v)), TOP + plotH + 4);
    }
    canvas.onmousemove = (e) => {
      const i = binAt(lo + (e.offsetX - left) / plotW * (hi - lo), bins);
      if (i < 0) { hideTip(); return; }
      const b = bins[i];
      showTip(e, [fill(labels.bin, {low: decimal(b.low, 1), high: decimal(b.high, 1)}), format.tiles(b.count),
        b.outOfMemory === true ? labels.bin_out_of_memory : b.outOfMemory === null ? labels.bin_maybe : ""]);
    };
    canvas.onmouseleave = hideTip;
  };
  button.addEventListener("click", () => { log = !log; draw(); });
  draw();
  return draw;
}
