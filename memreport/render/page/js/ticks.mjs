// Where the charts' ticks and labels go: round values on a value axis, a tick per tile (or per round count of
// tiles) under the tile chart's bars, powers of ten on a log axis of counts, round seconds on the timeline, which
// IPU lines are named, which side of a line its label stands. Pure functions.

// A round step (1, 2 or 5 times a power of ten) near range / count.
export function niceStep(range, count) {
  const raw = range / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
  return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

// The unit of a byte axis's steps: MiB (1,048,576) once the range spans 4 MiB, KiB once it spans 4 KiB, else bytes.
export function byteUnit(lo, hi) {
  return hi - lo >= 4 * 1048576 ? 1048576 : hi - lo >= 4096 ? 1024 : 1;
}

// Ticks of a byte axis from lo to hi: whole MiB steps once the range spans 4 MiB, whole KiB once it spans 4 KiB,
// whole bytes below (never 0.5 B: a label written twice; never 100,000 KiB where 100 MiB is meant).
export function byteTicks(lo, hi, count) {
  const unit = byteUnit(lo, hi), step = Math.max(1, niceStep((hi - lo) / unit, count)) * unit;
  const out = [];
  for (let k = Math.ceil(lo / step); k * step <= hi; k++) out.push(k * step);
  return out;
}

// The ticks under the tile chart for the view [x0, x1) of n tiles, plotW pixels wide, labels at least gap
// pixels apart: tile numbers a round step apart, at least 1 (no tile named twice), each placed at the centre of
// its tile's bar (at: in tiles, t + 0.5), never at a bar's edge.
export function tileTicks(x0, x1, n, plotW, gap) {
  const span = x1 - x0;
  const step = Math.max(1, niceStep(span, Math.max(1, Math.floor(plotW / gap))));
  const wide = step * plotW / span < gap ? 2 * step : step;  // a rounded-down step too tight: twice as far apart
  const out = [];
  for (let t = Math.max(0, Math.ceil((x0 - 0.5) / wide) * wide); t + 0.5 < x1 && t < n; t += wide) {
    if (t + 0.5 > x0) out.push({tile: t, at: t + 0.5});  // a tile whose centre is in view, not on its edge
  }
  return out;
}

// The IPU boundaries inside the view: tile numbers that start an IPU.
export function ipuBoundaries(x0, x1, tilesPerIpu, n) {
  const out = [];
  if (!tilesPerIpu || tilesPerIpu >= n) return out;
  for (let b = Math.ceil(x0 / tilesPerIpu) * tilesPerIpu; b < x1 && b < n; b += tilesPerIpu) if (b > 0) out.push(b);
  return out;
}

// Which IPUs' lines are named when an IPU is pxPerIpu pixels wide and a name needs width pixels: every stride-th
// (1, 2, 5, 10, 20...), the smallest stride that keeps the names apart (a pod's 64 IPUs: IPU 0, IPU 5, ...).
export function ipuLabelStride(pxPerIpu, width) {
  if (!(pxPerIpu > 0)) return Infinity;
  for (let p = 1; ; p *= 10) for (const m of [1, 2, 5]) if (m * p * pxPerIpu >= width) return m * p;
}

// A label of the given width beside a vertical line at x in a plot from left to right: after the line (pad
// pixels on), else before it where it would run past the right edge, else flush with the right edge:
// {x, align} for fillText.
export function besideLine(x, width, left, right, pad) {
  if (x + pad + width <= right) return {x: x + pad, align: "left"};
  if (x - pad - width >= left) return {x: x - pad, align: "right"};
  return {x: right, align: "right"};
}

// Ticks of a log axis of counts up to most: 1, 10, 100...
export function logTicks(most) {
  const out = [];
  for (let v = 1; v <= most; v *= 10) out.push(v);
  return out;
}

// Ticks of a linear axis of counts up to most: whole numbers.
export function countTicks(most, count) {
  const step = Math.max(1, niceStep(most, count)), out = [];
  for (let k = 0; k * step <= most; k++) out.push(k * step);
  return out;
}

// Round values from lo (or 0, if above) to hi on an axis plotW pixels wide, labels at least gap pixels apart.
export function spacedTicks(lo, hi, plotW, gap) {
  const step = niceStep(hi - lo, Math.max(1, Math.floor(plotW / gap))), out = [];
  const wide = step * plotW / (hi - lo) < gap ? 2 * step : step;  // a rounded-down step too tight: twice as far
  for (let k = Math.ceil(Math.max(lo, 0) / wide); k * wide <= hi * (1 + 1e-9); k++) out.push(k * wide);
  return out;
}
