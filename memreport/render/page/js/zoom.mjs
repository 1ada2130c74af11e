// The tile chart's view: which tiles [x0, x1) show, how zoom and pan move it, which tiles a pixel column holds.
// Pure functions of numbers (the chart in tilechart.mjs draws them).

export const MIN_SPAN = 5;  // the deepest zoom: this many tiles across the plot (a bar each, side by side)
// The y axis reaches up to tile memory only when it is this close to the largest tile (as the PNG's, in
// render/plot_axes.py), so a chart of small tiles opens fitted to them, not squashed flat at 0.
export const LIMIT_HEADROOM = 1.5;

// The view [a, b) kept within the n tiles, at least MIN_SPAN (or n) tiles wide.
export function clampView(a, b, n) {
  const span = Math.max(Math.min(MIN_SPAN, n), Math.min(n, b - a));
  const start = Math.max(0, Math.min(n - span, a));
  return [start, start + span];
}

// The view zoomed by factor (under 1: in) about the tile position center, which stays where it was.
export function zoomView(x0, x1, center, factor, n) {
  const span = x1 - x0, wanted = Math.max(Math.min(MIN_SPAN, n), Math.min(n, span * factor));
  const f = span > 0 ? (center - x0) / span : 0.5;
  return clampView(center - f * wanted, center - f * wanted + wanted, n);
}

// The tile position (fractional) under pixel px of a plot from left, plotW wide.
export function positionAt(px, x0, x1, left, plotW) {
  return x0 + Math.max(0, Math.min(1, (px - left) / plotW)) * (x1 - x0);
}

// The tiles [a, b) drawn in pixel column col (0 at the plot's left), as the chart draws them.
export function columnTiles(col, x0, x1, plotW, n) {
  const per = (x1 - x0) / plotW;
  const a = Math.min(n - 1, Math.floor(x0 + col * per));
  return [a, Math.min(n, Math.max(a + 1, Math.floor(x0 + (col + 1) * per)))];
}

// The tiles under pixel px, or null outside the plot.
export function tilesAtPixel(px, x0, x1, left, plotW, n) {
  if (n === 0 || px < left || px >= left + plotW) return null;
  return columnTiles(Math.floor(px - left), x0, x1, plotW, n);
}

// Whether the chart opens fitted to its largest tile rather than reaching up to tile memory.
export function opensFitted(largest, limit) {
  return !(limit && limit <= LIMIT_HEADROOM * Math.max(largest, 1));
}

// The y range [lo, hi] of values from smallest to largest, up to limit unless fitted, with room at the top.
export function valueRange(smallest, largest, limit, fitted) {
  const top = fitted || !limit ? largest : Math.max(largest, limit);
  const lo = smallest < 0 ? smallest * 1.04 : 0;
  return [lo, top <= lo ? lo + 1 : top * 1.04];
}
